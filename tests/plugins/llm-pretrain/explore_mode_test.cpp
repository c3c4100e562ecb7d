#include "plugin.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "dgx/llm/catalog.hpp"
#include "llm_host.hpp"
#include "params.hpp"

using namespace dgx::plugins::llm_pretrain;
using PretrainHost = dgx::testing::LlmHost<PretrainWorkload, pretrain_params>;

namespace {

/// Runs explore mode on `h`; returns the config error's message, or "" when it succeeded.
std::string explore(PretrainHost& h) { return h.run("explore"); }

std::vector<std::string> titles(const PretrainHost& h, bool after) {
  std::vector<std::string> out;
  for (const auto& n : h.placed_notes) {
    if (n.after == after) {
      out.push_back(n.title);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("the explore space follows the explore keys and the batch rule") {
  PretrainHost h;
  h.use_preset("llama70b");
  const dgx::sdk::Host host(h.api());
  const dgx::llm::ExploreSpace fixed = Pretraining(host).explore_space();
  CHECK(fixed.gpus_min == 64);
  CHECK(fixed.gpus_max == 16384);
  CHECK(fixed.batch.kind == dgx::llm::BatchRule::Kind::fixed);
  CHECK(fixed.batch.value == 1024);
  CHECK(fixed.precisions.size() == 2);
  CHECK(fixed.seq_len == 8192);
  h.set(key::gbs_per_gpu, std::int64_t{2});
  h.set(key::explore_gpus, std::vector<std::int64_t>{64, 512});
  const dgx::llm::ExploreSpace scaled = Pretraining(host).explore_space();
  CHECK(scaled.batch.gbs_for(512) == 1024);
  CHECK(scaled.gpu_counts == std::vector<int>{64, 512});
}

TEST_CASE("explore emits the best layout per GPU count and precision, marked, between its notes") {
  PretrainHost h;
  h.use_preset("llama70b");
  REQUIRE(explore(h).empty());
  REQUIRE(h.rows.size() == 18);  // 64 ... 16384 GPUs x bf16, fp8
  int pareto = 0, recommended = 0;
  for (std::size_t i = 0; i < h.rows.size(); ++i) {
    const auto& row = h.rows[i];
    CHECK(row.mode == DGX_RESULT_PROJECTED);
    CHECK(h.visibility[i].table == "explore");
    CHECK(h.visibility[i].hidden_fields.count("layout") == 0);
    CHECK(row.fields.at("layout").find("TP") == 0);
    CHECK(row.metrics.at("memory_per_gpu").first <= 80.0 * 1024 * 1024 * 1024);
    CHECK(row.config.at("train.gbs") == "1024");
    pareto += row.fields.at("pareto") == "*";
    recommended += row.fields.at("recommended") == "yes";
  }
  CHECK(h.rows.front().config.at("gpus") == "64");
  CHECK(h.rows.back().config.at("gpus") == "16384");
  CHECK(pareto >= 2);
  CHECK(recommended == 1);
  CHECK(titles(h, false) == std::vector<std::string>{"Assumptions", "Sweep"});
  CHECK(titles(h, true) == std::vector<std::string>{"Summary", "Pareto front (days vs cost)", "Recommendation",
                                                    "How sure", "Published recipe", "Layout labels", "Dropped",
                                                    "Projection"});
  CHECK(h.note("Recommendation").find("(recommended = yes)") != std::string::npos);
  CHECK(h.note("Recommendation").find("explore.deadline_days=DAYS") != std::string::npos);
  CHECK(h.note("Dropped").find("valid layouts need more than the 80.0 GiB of h100-sxm per GPU") != std::string::npos);
  CHECK(h.note("Projection").find("layouts in ") != std::string::npos);
  // Wall time beside the process's CPU time: on a loaded machine the first alone misleads.
  CHECK(h.note("Projection").find(" of CPU time).") != std::string::npos);
  CHECK(h.note("Sweep").find("GPU counts: 64, 128, ..., 16384") == 0);
}

TEST_CASE("the recommendation is the fastest within the budget slack and is on the Pareto front") {
  for (const double slack : {0.0, 0.05, 0.5}) {
    PretrainHost h;
    h.use_preset("llama70b");
    h.set(key::budget_slack, slack);
    REQUIRE(explore(h).empty());
    double cheapest = 1e300;
    for (const auto& row : h.rows) {
      cheapest = std::min(cheapest, row.metrics.at("cost_usd").first);
    }
    const auto pick =
        std::find_if(h.rows.begin(), h.rows.end(), [](const auto& r) { return r.fields.at("recommended") == "yes"; });
    REQUIRE(pick != h.rows.end());
    CHECK(pick->fields.at("pareto") == "*");
    CHECK(pick->metrics.at("cost_usd").first <= cheapest * (1 + slack) + 1e-6);
    for (const auto& row : h.rows) {
      if (row.metrics.at("cost_usd").first <= cheapest * (1 + slack)) {
        CHECK(row.metrics.at("days_to_train").first >= pick->metrics.at("days_to_train").first);
      }
    }
  }
}

TEST_CASE("with a deadline the cheapest configuration meeting it is marked, or the note says none does") {
  PretrainHost h;
  h.use_preset("llama70b");
  h.set(key::deadline_days, 10.0);
  REQUIRE(explore(h).empty());
  const auto pick = std::find_if(h.rows.begin(), h.rows.end(), [](const auto& r) {
    return r.fields.at("recommended").find("deadline") != std::string::npos;
  });
  REQUIRE(pick != h.rows.end());
  CHECK(pick->metrics.at("days_to_train").first <= 10);
  CHECK(h.note("Recommendation").find("Within the deadline of 10.0 days") != std::string::npos);

  PretrainHost never;
  never.use_preset("llama70b");
  never.set(key::deadline_days, 0.01);
  REQUIRE(explore(never).empty());
  CHECK(never.note("Recommendation").find("No configuration trains within 0.0 days") != std::string::npos);
}

TEST_CASE("GPU counts and precisions that cannot run are dropped with the reason") {
  PretrainHost h;
  h.use_preset("llama405b");
  h.set(key::explore_gpus, std::vector<std::int64_t>{127, 16, 2048});
  h.set(key::precision, std::vector<std::string>{"bf16", "mxfp8"});
  REQUIRE(explore(h).empty());
  REQUIRE(h.rows.size() == 1);
  CHECK(h.rows.front().config.at("gpus") == "2048");
  const std::string dropped = h.note("Dropped");
  CHECK(dropped.find("No layout fits at 16 GPUs (the leanest of ") != std::string::npos);
  CHECK(dropped.find("No valid layout at 127 GPUs") != std::string::npos);  // a prime above the 126 layers
  CHECK(dropped.find("h100-sxm does not support mxfp8: skipped.") != std::string::npos);
}

TEST_CASE("when nothing is feasible explore is a config error that says why") {
  PretrainHost h;
  h.use_preset("llama405b");
  h.set(key::explore_gpus, std::vector<std::int64_t>{8, 16});
  const std::string message = explore(h);
  CHECK(message.find("no feasible configuration of llama3.1-405b on h100-sxm") != std::string::npos);
  CHECK(message.find("the leanest needs ") != std::string::npos);
  CHECK(h.rows.empty());
}

TEST_CASE("every embedded preset explores to rows marked with a recommendation") {
  for (const char* preset : {"llama8b", "llama70b", "llama405b", "nemotron15b", "nemotron340b", "gpt3-175b",
                             "mixtral8x7b", "mixtral8x22b"}) {
    PretrainHost h;
    h.use_preset(preset);
    CHECK_MESSAGE(explore(h).empty(), preset);
    CHECK_MESSAGE(std::count_if(h.rows.begin(), h.rows.end(),
                                [](const auto& r) { return r.fields.at("recommended") == "yes"; }) == 1,
                  preset);
  }
}

TEST_CASE("a list of framework releases is compared for the same job, with what the upgrade buys") {
  PretrainHost h;
  h.use_preset("llama70b");
  h.set(key::framework, std::vector<std::string>{"nemo-24.07", "nemo-26.02.01"});
  h.set(key::precision, std::vector<std::string>{"fp8"});
  h.set(key::explore_gpus, std::vector<std::int64_t>{512, 1024});
  REQUIRE(explore(h).empty());
  REQUIRE(h.rows.size() == 4);  // two GPU counts under each release
  CHECK(h.rows.front().config.at("framework") == "\"nemo-24.07\"");
  CHECK(h.rows.back().config.at("framework") == "\"nemo-26.02.01\"");
  CHECK(h.visibility.front().hidden_config.count("framework") == 0);  // a column while releases are compared
  // Only the lead (newest) release carries the front and the recommendation; each release is its own series, and
  // every row names both releases in its one source line.
  int marked = 0;
  for (const auto& row : h.rows) {
    const bool lead = row.config.at("framework") == "\"nemo-26.02.01\"";
    marked += !row.fields.at("recommended").empty();
    CHECK((lead || row.fields.at("pareto").empty()));
    CHECK(row.fields.at("series") == (lead ? "fp8 nemo-26.02.01" : "fp8 nemo-24.07"));
    CHECK(row.fields.at("source").find("frameworks nemo-24.07, nemo-26.02.01") != std::string::npos);
  }
  CHECK(marked == 1);
  const std::string upgrade = h.note("Framework upgrade");
  CHECK(upgrade.find("The same job (llama3.1-70b") == 0);
  CHECK(upgrade.find("Upgrading from nemo-24.07 to nemo-26.02.01 saves ") != std::string::npos);
}

TEST_CASE("one release is a hidden config key and every row states its class's calibration error") {
  PretrainHost h;
  h.use_preset("llama70b");
  h.set(key::explore_gpus, std::vector<std::int64_t>{512});
  REQUIRE(explore(h).empty());
  CHECK(h.visibility.front().hidden_config.count("framework") == 1);
  for (const auto& row : h.rows) {
    CHECK(row.fields.at("accuracy").find("h100-sxm ") == 0);
    CHECK(row.fields.at("accuracy").find(" published runs like it") != std::string::npos);
    CHECK(row.fields.at("band").find("±") == 0);
    CHECK(row.metrics.at("accuracy_band").first > 1);
    CHECK(row.fields.at("framework").find(dgx::llm::default_framework()) == 0);
  }
  CHECK(h.note("Outside calibration").empty());
}

TEST_CASE("an uncalibrated system or model is named before the table") {
  PretrainHost h;
  h.use_preset("mixtral8x7b");
  h.set(key::system, std::string("b300"));
  h.set(key::explore_gpus, std::vector<std::int64_t>{64});
  REQUIRE(explore(h).empty());
  const std::string scope = h.note("Outside calibration");
  CHECK(scope.find("b300 has no published run") != std::string::npos);
  CHECK(scope.find("mixture-of-experts") != std::string::npos);
  for (const auto& row : h.rows) {
    CHECK(row.fields.at("accuracy").find("outside calibration: b300 has no published run") != std::string::npos);
  }
}
