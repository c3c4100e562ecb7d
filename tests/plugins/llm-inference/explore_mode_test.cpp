#include "plugin.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "llm_host.hpp"
#include "params.hpp"

using namespace dgx::plugins::llm_inference;
using InferenceHost = dgx::testing::LlmHost<InferenceWorkload, inference_params>;

TEST_CASE("explore prints the Pareto front and recommends the cheapest configuration within the SLOs") {
  InferenceHost h;
  h.use_preset("llama70b-serve");
  h.project(dgx::sdk::Mode::explore);
  REQUIRE(h.rows.size() >= 3);
  int recommended = 0;
  for (const auto& row : h.rows) {
    CHECK(row.mode == DGX_RESULT_PROJECTED);
    CHECK(row.fields.at("pareto") == "*");
    recommended += row.fields.at("recommended") == "yes";
    // The chart's series: the pick on its own, the others by aggregated or disaggregated.
    CHECK((row.fields.count("pick") == 1) == (row.fields.at("recommended") == "yes"));
    CHECK((row.fields.at("serving") == "aggregated" || row.fields.at("serving") == "disaggregated"));
  }
  CHECK(recommended == 1);
  CHECK(h.visibility.front().table == "explore");
  CHECK(h.note("Recommendation").find("(recommended = yes)") != std::string::npos);
  CHECK(h.note("Pareto front (tokens/s per GPU vs per user)").find("Fastest per user first:") != std::string::npos);
  CHECK(h.note("Sweep").find("Layouts: TP 1-8") == 0);
  CHECK(h.note("Projection").find("This sweep projected") != std::string::npos);
  // The other engines' picks under the same SLOs, each against this run's.
  const std::string engines = h.note("Engines");
  CHECK(engines.find("trtllm (this run): $") == 0);
  CHECK(engines.find("; vllm: $") != std::string::npos);
  CHECK(engines.find("; sglang: $") != std::string::npos);
}

TEST_CASE("the explore table names each row's precision and says which configurations it leaves out") {
  InferenceHost h;
  h.use_preset("llama70b-serve");
  h.project(dgx::sdk::Mode::explore);
  REQUIRE(!h.rows.empty());
  for (std::size_t i = 0; i < h.rows.size(); ++i) {
    CHECK(h.visibility[i].hidden_fields.count("precision") == 0);  // shown even when every front row is fp8
    CHECK(h.rows[i].fields.at("precision") == "fp8");
  }
  const std::string rows = h.note("Rows");
  CAPTURE(rows);
  CHECK(rows.find(" dominated ones are left out, every bf16 configuration among them (none is on the front)") !=
        std::string::npos);
  CHECK(rows.find("--set explore.rows=all shows every configuration explored.") != std::string::npos);

  InferenceHost all;
  all.use_preset("llama70b-serve");
  all.set(key::explore_rows, std::string("all"));
  all.project(dgx::sdk::Mode::explore);
  CHECK(
      std::any_of(all.rows.begin(), all.rows.end(), [](const auto& r) { return r.fields.at("precision") == "bf16"; }));
  CHECK(all.note("Rows").empty());
}

TEST_CASE("explore.rows = all prints every configuration, an SLO nothing meets is named") {
  InferenceHost h;
  h.use_preset("llama8b-serve");
  h.set(key::explore_rows, std::string("all"));
  h.set(key::slo_tpot, 0.001);
  h.project(dgx::sdk::Mode::explore);
  CHECK(h.rows.size() > 20);
  CHECK(std::none_of(h.rows.begin(), h.rows.end(), [](const auto& r) { return r.fields.at("recommended") == "yes"; }));
  CHECK(h.note("Recommendation").find("TPOT <= 1.0 ms binds") != std::string::npos);
}

TEST_CASE("a sweep where nothing can run is a configuration error") {
  InferenceHost h;
  h.use_preset("llama70b-serve");
  h.set(key::isl, std::int64_t{200000});
  CHECK_THROWS_WITH_AS(h.project(dgx::sdk::Mode::explore),
                       "ISL 200000 exceeds the context of llama3.1-70b (131072 tokens)", dgx::sdk::InvalidArgument);
}
