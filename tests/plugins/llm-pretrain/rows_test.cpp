#include "plugin.hpp"

#include <doctest/doctest.h>

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/device_peak.hpp"
#include "llm_fixtures.hpp"
#include "llm_host.hpp"
#include "params.hpp"

using namespace dgx::plugins::llm_pretrain;
using dgx::llm::workload::Assumptions;
using dgx::llm::workload::Headline;
using dgx::llm::workload::layout_label;
using PretrainHost = dgx::testing::LlmHost<PretrainWorkload, pretrain_params>;

namespace {

Assumptions h100_assumptions(bool priced) {
  Assumptions a = dgx::testing::h100_assumptions("mixtral-8x7b", priced, "test price");
  a.price_reason = priced ? "test price" : "no price";
  a.calibration = "test calibration";
  return a;
}

dgx::llm::TrainConfig train() {
  dgx::llm::TrainConfig t;
  t.precision = dgx::llm::Precision::fp8;
  t.layout = {.tp = 2, .pp = 4, .cp = 1, .vp = 2, .ep = 8};
  t.mbs = 1;
  t.gbs = 256;
  t.seq_len = 4096;
  return t;
}

}  // namespace

TEST_CASE("the layout label is compact: EP only for MoE, recompute only when on") {
  dgx::llm::TrainConfig t = train();
  CHECK(layout_label(t, true) == "TP2 PP4 CP1 VP2 EP8 MBS1");
  t.layout.ep = 1;
  t.recompute = dgx::llm::Recompute::selective;
  CHECK(layout_label(t, false) == "TP2 PP4 CP1 VP2 MBS1 RC-sel");
  t.recompute = dgx::llm::Recompute::full;
  t.mbs = 4;
  CHECK(layout_label(t, false) == "TP2 PP4 CP1 VP2 MBS4 RC-full");
}

TEST_CASE("a projected row carries config, provenance and metrics, the table shows the headline only") {
  PretrainHost h;
  const dgx::sdk::Host host(h.api());
  dgx::llm::StepBreakdown b;
  b.compute = 1;
  b.tp_comm = 0.1;
  b.stragglers = 0.05;
  const Headline headline{.gpus = 64,
                          .step_time_s = 1.15,
                          .tokens_per_s = 1e6,
                          .tokens_per_s_per_gpu = 15625,
                          .model_tflops_per_gpu = 700,
                          .mfu = 0.35,
                          .memory_bytes = 7e10,
                          .days = 11.6,
                          .gpu_hours = 17800,
                          .cost_usd = 35600,
                          .dp = 8,
                          .microbatches = 32};
  host.emit(Pretraining({}, h100_assumptions(true)).projected_row("explore", train(), headline, b));
  REQUIRE(h.rows.size() == 1);
  const auto& row = h.rows.front();
  const auto& shown = h.visibility.front();
  CHECK(row.mode == DGX_RESULT_PROJECTED);
  CHECK(shown.table == "explore");
  CHECK(row.config.at("gpus") == "64");
  CHECK(row.config.at("precision") == "\"fp8\"");
  CHECK(row.config.at("parallel.ep") == "8");
  CHECK(row.config.at("train.gbs") == "256");
  CHECK(shown.hidden_config.count("gpus") == 0);
  CHECK(shown.hidden_config.count("precision") == 0);
  CHECK(shown.hidden_config.count("parallel.tp") == 1);
  CHECK(row.metrics.at("mfu").first == doctest::Approx(35));
  CHECK(row.metrics.at("mfu").second == "%");
  CHECK(row.metrics.at("cost_usd") == std::pair<double, std::string>{35600, "USD"});
  CHECK(row.metrics.at("breakdown.tp").first == 0.1);
  CHECK(row.metrics.at("breakdown.stragglers").first == 0.05);
  // TFLOP/s/GPU beside MFU: MFU's peak differs between precisions, the model FLOP/s do not.
  for (const char* visible :
       {"step_time", "tokens_per_s_per_gpu", "model_tflops_per_gpu", "mfu", "days_to_train", "cost_usd"}) {
    CHECK_MESSAGE(shown.hidden_metrics.count(visible) == 0, visible);
  }
  for (const char* hidden : {"tokens_per_s", "memory_per_gpu", "gpu_hours", "breakdown.dp"}) {
    CHECK_MESSAGE(shown.hidden_metrics.count(hidden) == 1, hidden);
  }
  CHECK(row.fields.at("model") == "dgx-llm-model 3");
  CHECK(row.fields.at("system") == "h100-sxm");
  CHECK(row.fields.at("calibration") == "test calibration");
  CHECK(row.fields.at("price") == "test price");
  CHECK(row.fields.at("mfu_peak") ==
        dgx::llm::system_peak(*dgx::llm::find_system("h100-sxm"), dgx::llm::Precision::fp8)->label());
  CHECK(row.fields.at("flops_convention").find("full attention") == 0);
  CHECK(row.fields.at("source").find("projected: dgx-llm-model 3, system h100-sxm") == 0);
  // Every provenance field stays out of the terminal table but the band, its expected error.
  CHECK(shown.hidden_fields.count("band") == 0);
  CHECK(row.fields.at("band").find("±") == 0);
  CHECK(shown.hidden_fields.size() == row.fields.size() - 1);
}

TEST_CASE("without a price the table shows GPU-hours instead of a cost") {
  PretrainHost h;
  const dgx::sdk::Host host(h.api());
  Headline headline;
  headline.gpus = 8;
  headline.gpu_hours = 100;
  host.emit(Pretraining({}, h100_assumptions(false)).projected_row("explore", train(), headline, {}));
  CHECK(h.rows.front().metrics.count("cost_usd") == 0);
  CHECK(h.visibility.front().hidden_metrics.count("gpu_hours") == 0);
}
