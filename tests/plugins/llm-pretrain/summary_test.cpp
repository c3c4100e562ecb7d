// The explore notes of summary.cpp: the headline trade-offs, the batch rule, MFU's peak, the layout labels and the
// providers' prices, as the buyer reads them after the table.
#include "plugin.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "llm_host.hpp"
#include "params.hpp"
#include "text_checks.hpp"

using namespace dgx::plugins::llm_pretrain;
using dgx::testing::has;
using PretrainHost = dgx::testing::LlmHost<PretrainWorkload, pretrain_params>;

TEST_CASE("the summary gives scaling, FP8 against BF16, the batch rule and the other rule's scaling, MFU's peak") {
  PretrainHost h;
  h.use_preset("llama70b");
  // 4096 GPUs cost 9 % more than the cheapest (64), beyond the 5 % slack: the recommendation is 1024 GPUs.
  h.set(key::explore_gpus, std::vector<std::int64_t>{64, 1024, 4096});
  REQUIRE(h.run("explore").empty());
  const std::string summary = h.note("Summary");
  CAPTURE(summary);
  CHECK(summary.find("Projected (dgx-llm-model 3; ratios of projected rows, each within its band: ±") == 0);
  CHECK(has(summary, "Scaling (fp8): 64 -> 1024 GPUs: -94% days for +"));
  CHECK(has(summary, "64 -> 4096 GPUs: -98% days for +"));
  CHECK(has(summary, "% scaling efficiency"));
  CHECK(has(summary, "FP8 vs BF16 at 1024 GPUs (the recommended count, each with its fastest layout): +"));
  CHECK(has(summary, "% tokens/s/GPU, -"));
  CHECK(has(summary, "Batch rule: this run uses a fixed global batch of 1024 sequences at every GPU count"));
  CHECK(has(summary, "Under weak scaling, 16 sequences per GPU (--set explore.gbs_per_gpu=16, the same batch at 64 "
                     "GPUs) 64 -> 4096 GPUs: "));
  CHECK(has(summary, "MFU divides each row's model FLOP/s per GPU by the dense peak of the row's own precision "
                     "(h100-sxm: 989 TFLOP/s dense BF16, 1979 FP8)"));
}

TEST_CASE("under weak scaling the summary names the rule and offers the fixed global batch") {
  PretrainHost h;
  h.use_preset("llama70b");
  h.set(key::gbs_per_gpu, std::int64_t{2});
  h.set(key::precision, std::vector<std::string>{"fp8"});
  h.set(key::explore_gpus, std::vector<std::int64_t>{512, 2048});
  REQUIRE(h.run("explore").empty());
  const std::string summary = h.note("Summary");
  CAPTURE(summary);
  CHECK(has(summary, "Batch rule: this run uses weak scaling, 2 sequences per GPU (explore.gbs_per_gpu)"));
  CHECK(has(summary, "Under a fixed global batch of 1024 sequences at every GPU count (--set explore.gbs_per_gpu=0 "
                     "--set train.gbs=1024, the same batch at 512 GPUs) 512 -> 2048 GPUs: "));
  CHECK_FALSE(has(summary, "vs BF16"));  // one precision: nothing to hold against BF16
}

TEST_CASE("at one GPU count the summary holds the precisions against each other and names the batch rule alone") {
  PretrainHost h;
  h.use_preset("llama70b");
  h.set(key::explore_gpus, std::vector<std::int64_t>{1024});
  REQUIRE(h.run("explore").empty());
  const std::string summary = h.note("Summary");
  CAPTURE(summary);
  CHECK_FALSE(has(summary, "Scaling"));
  CHECK(has(summary, "Batch rule: this run uses a fixed global batch of 1024 sequences at every GPU count "
                     "(train.gbs; explore.gbs_per_gpu = 0).\n"));
}

TEST_CASE("the layout labels say what VP counts and how layers and the embedding and loss stages are counted") {
  PretrainHost h;
  h.use_preset("mixtral8x22b");
  h.set(key::system, std::string("h100-sxm"));  // its picks include PP2 VP29: 56 layers do not split in 58 chunks
  REQUIRE(h.run("explore").empty());
  const std::string labels = h.note("Layout labels");
  CAPTURE(labels);
  CHECK(has(labels, "VP1 is one chunk per stage, plain 1F1B"));
  CHECK(has(labels, "The 56 decoder layers are split over PP x VP chunks"));
  CHECK(has(labels, "PP2 VP29: 56 layers + the embedding + the loss = 58 over 2 x 29 chunks, 1 each"));
  CHECK(has(labels, "MBSn: micro-batch"));
  CHECK(has(labels, "EPn (mixture of experts): expert-parallel GPUs, folded over TP x CP x DP"));
  bool odd_vp = false;  // a VP count that does not divide the layers is explained by its own line
  for (const auto& row : h.rows) {
    const std::string& layout = row.fields.at("layout");
    const auto vp = layout.find(" VP");
    const auto pp = layout.find(" PP");
    if (vp == std::string::npos || pp == std::string::npos) {
      continue;
    }
    const int v = std::stoi(layout.substr(vp + 3));
    const int p = std::stoi(layout.substr(pp + 3));
    if (p > 1 && 56 % (p * v) != 0) {
      odd_vp = true;
      CHECK_MESSAGE(has(labels, "PP" + std::to_string(p) + " VP" + std::to_string(v) + ": 56 layers"), layout);
    }
  }
  CHECK(odd_vp);
}

TEST_CASE("several providers are compared in one explore: a column, a series each, one recommendation naming one") {
  PretrainHost h;
  h.use_preset("llama70b");
  h.set(key::provider, std::vector<std::string>{"aws", "gcp", "nebius"});
  h.set(key::precision, std::vector<std::string>{"fp8"});
  h.set(key::explore_gpus, std::vector<std::int64_t>{512, 1024});
  REQUIRE(h.run("explore").empty());
  REQUIRE(h.rows.size() == 6);
  std::vector<std::string> series;
  int recommended = 0;
  for (std::size_t i = 0; i < h.rows.size(); ++i) {
    CHECK(h.visibility[i].hidden_config.count("cost.provider") == 0);
    series.push_back(h.rows[i].fields.at("series"));
    recommended += !h.rows[i].fields.at("recommended").empty();
  }
  CHECK(std::count(series.begin(), series.end(), "fp8 nebius") == 2);
  CHECK(std::count(series.begin(), series.end(), "fp8 aws") == 2);
  CHECK(recommended == 1);
  const std::string recommendation = h.note("Recommendation");
  CHECK(has(recommendation, " on nebius: "));  // the cheapest list price wins at equal days
  CHECK(
      has(h.note("Assumptions"), "Compared in explore: aws, gcp, nebius (cost.provider), each at its own list price"));
  const std::string providers = h.note("Provider comparison");
  CAPTURE(providers);
  CHECK(has(providers, "at each provider's price, cheapest first:\nnebius $2.95/GPU-h: "));
  CHECK(has(providers, "(recommended)"));
  CHECK(has(providers, "aws $"));
  CHECK(has(providers, "gcp $"));
}

TEST_CASE("a provider list with an explicit price is a config error, as is a provider without the system") {
  PretrainHost both;
  both.use_preset("llama70b");
  both.set(key::provider, std::vector<std::string>{"aws", "gcp"});
  both.set(key::usd_per_gpu_hour, 2.0);
  CHECK(has(both.run("explore"), "cost.usd_per_gpu_hour gives one price for every row"));
  PretrainHost missing;
  missing.use_preset("llama70b");
  missing.set(key::system, std::string("gb200-nvl72"));
  missing.set(key::provider, std::vector<std::string>{"coreweave", "gcp"});
  CHECK(has(missing.run("explore"), "gcp"));
}

TEST_CASE("explore.budget_usd marks the fastest within the budget, and with a deadline says whether one meets both") {
  PretrainHost h;
  h.use_preset("llama70b");
  h.set(key::budget_usd, 500000.0);
  h.set(key::deadline_days, 5.0);
  REQUIRE(h.run("explore").empty());
  const auto pick = std::find_if(h.rows.begin(), h.rows.end(), [](const auto& r) {
    return r.fields.at("recommended").find("budget") != std::string::npos;
  });
  REQUIRE(pick != h.rows.end());
  const double days = pick->metrics.at("days_to_train").first;
  CHECK(pick->metrics.at("cost_usd").first <= 500000);
  for (const auto& row : h.rows) {
    if (row.metrics.at("cost_usd").first <= 500000) {
      CHECK(row.metrics.at("days_to_train").first >= days);
    }
  }
  const std::string recommendation = h.note("Recommendation");
  CAPTURE(recommendation);
  CHECK(has(recommendation, "Within the budget of $500k (explore.budget_usd), the fastest is "));
  CHECK(has(recommendation, "(recommended = budget)"));
  CHECK(has(recommendation, "meets the deadline within the budget."));

  PretrainHost poor;
  poor.use_preset("llama70b");
  poor.set(key::budget_usd, 1000.0);
  REQUIRE(poor.run("explore").empty());
  CHECK(
      has(poor.note("Recommendation"), "No configuration costs at most $1000 (explore.budget_usd); the cheapest is "));
}
