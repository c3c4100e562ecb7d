#include "plugin.hpp"

#include <doctest/doctest.h>

#include <set>

#include "llm_host.hpp"
#include "params.hpp"

using namespace dgx::plugins::llm_finetune;
using FinetuneHost = dgx::testing::LlmHost<FinetuneWorkload, finetune_params>;

TEST_CASE("explore compares SFT and LoRA over GPU counts and precisions: one Pareto front of hours and dollars") {
  FinetuneHost h;
  h.use_preset("llama70b-lora");
  h.set(key::explore_gpus, std::vector<std::int64_t>{8, 16, 32});
  REQUIRE(h.run("explore") == "");
  std::set<std::string> methods;
  int pareto = 0, recommended = 0;
  for (std::size_t i = 0; i < h.rows.size(); ++i) {
    const auto& row = h.rows[i];
    methods.insert(row.config.at("finetune.method"));
    pareto += row.fields.at("pareto") == "*" ? 1 : 0;
    recommended += row.fields.at("recommended") == "yes" ? 1 : 0;
    CHECK(row.mode == DGX_RESULT_PROJECTED);
    CHECK(h.metric(i, "hours_to_finetune") > 0);
    // SFT of 70B does not fit on 8 GPUs; LoRA does.
    if (row.config.at("finetune.method") == "\"sft\"") {
      CHECK(row.config.at("gpus") != "8");
    }
  }
  CHECK(methods == std::set<std::string>{"\"lora\"", "\"sft\""});
  CHECK(pareto >= 1);
  CHECK(recommended == 1);
  for (const char* title : {"Assumptions", "Sweep", "Pareto front (hours vs cost)", "Recommendation", "Trade", "FLOPs",
                            "Dropped", "Projection"}) {
    CHECK_MESSAGE(!h.note(title).empty(), title);
  }
  CHECK(h.note("Trade").find("quality") != std::string::npos);
  CHECK(h.note("Trade").find("LoRA trains 0.03% of the parameters") != std::string::npos);
  CHECK(h.note("Dropped").find("SFT: ") != std::string::npos);
  CHECK(h.note("Recommendation").find("(recommended = yes)") != std::string::npos);
}

TEST_CASE("a deadline in hours picks the cheapest configuration that meets it") {
  FinetuneHost h;
  h.use_preset("llama8b-lora");
  h.set(key::deadline_hours, 0.5);  // beyond the job's fixed 16 minutes
  REQUIRE(h.run("explore") == "");
  CHECK(h.note("Recommendation").find("Within the deadline of 0.5 hours") != std::string::npos);
  bool marked = false;
  for (std::size_t i = 0; i < h.rows.size(); ++i) {
    const std::string mark = h.rows[i].fields.at("recommended");
    if (mark.find("deadline") != std::string::npos) {
      marked = true;
      CHECK(h.metric(i, "hours_to_finetune") <= 0.5);
    }
  }
  CHECK(marked);
}

TEST_CASE("a method that fits at no explored GPU count is a config error naming why") {
  FinetuneHost h;
  h.use_preset("llama405b-lora");
  h.set(key::method, std::vector<std::string>{"sft"});
  h.set(key::gpus_max, std::int64_t{64});
  const std::string error = h.run("explore");
  CHECK(error.find("llama3.1-405b cannot be fine-tuned at any explored GPU count on h100-sxm (sft: ") == 0);
  CHECK(error.find("the leanest needs") != std::string::npos);
  FinetuneHost both;  // with LoRA asked for too, SFT's absence is a note, not an error
  both.use_preset("llama405b-lora");
  both.set(key::gpus_max, std::int64_t{64});
  REQUIRE(both.run("explore") == "");
  CHECK(both.note("Dropped").find("SFT: fits at no explored GPU count") != std::string::npos);
}

TEST_CASE("a 70B LoRA fits on 2 H100s and no fewer, as the README says") {
  FinetuneHost h;
  h.use_preset("llama70b-lora");
  h.set(key::method, std::vector<std::string>{"lora"});
  h.set(key::gpus_max, std::int64_t{8});
  REQUIRE(h.run("explore") == "");
  REQUIRE(!h.rows.empty());
  CHECK(h.rows.front().config.at("gpus") == "2");
  CHECK(h.note("Dropped").find("No layout fits at 1 GPUs") != std::string::npos);
}

TEST_CASE("several providers: the recommended job's cost at each provider's price, cheapest first") {
  FinetuneHost h;
  h.use_preset("llama70b-lora");
  h.set(key::provider, std::vector<std::string>{"aws", "nebius"});
  REQUIRE(h.run("explore") == "");
  const std::string note = h.note("Provider comparison");
  CAPTURE(note);
  CHECK(note.find("is the same at each provider, cheapest first:\nnebius $2.95/GPU-h: $") != std::string::npos);
  CHECK(note.find("(cheapest)\naws $6.88/GPU-h: $") != std::string::npos);
}
