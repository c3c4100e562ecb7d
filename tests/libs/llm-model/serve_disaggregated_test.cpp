#include "dgx/llm/serve_disaggregated.hpp"

#include "catalog_fixtures.hpp"
#include "serve_fixtures.hpp"

#include <doctest/doctest.h>

using namespace dgx::llm;
using namespace dgx::llm::testing;

namespace {

ServeProjection disaggregated(const ServeModel& model, const DisaggConfig& c) {
  const auto p = project_disaggregated(model, c, Price{.usd_per_gpu_hour = 2.0, .label = "test"});
  REQUIRE_MESSAGE(p.has_value(), (p ? "" : p.error().message));
  return *p;
}

}  // namespace

TEST_CASE("a prompt's KV cache moves from prefill to decode: its bytes from the KV format, NVLink inside a domain, "
          "the NICs across") {
  const ModelConfig m = catalog_model("llama3.1-70b");
  const SystemProfile s = catalog_system("h100-sxm");
  const ServeConfig c = serve_config({.tp = 4}, 8000, 1000, 0);
  // 8000 tokens x 80 layers x 8 KV heads x 128 x 2 (K, V) x 1 byte (FP8).
  CHECK(prompt_kv_bytes(m, c, 8000) == doctest::Approx(8000.0 * 80 * 8 * 128 * 2));
  const double bytes = prompt_kv_bytes(m, c, 8000);
  const double nvlink = kv_transfer_seconds(s, bytes, 4, false);
  const double network = kv_transfer_seconds(s, bytes, 4, true);
  CHECK(nvlink < network);
  CHECK(network == doctest::Approx(1e-3 + 5e-6 + bytes / (4 * 50e9 * 0.94)));
  // MLA's latent is 70x smaller per token than Llama's KV at FP8.
  CHECK(prompt_kv_bytes(catalog_model("deepseek-v3"), c, 8000) == doctest::Approx(8000.0 * 61 * 576));
}

TEST_CASE("xPyD is chosen by rate matching: the slower side gets the workers, the per-GPU rate counts every GPU") {
  const ServeModel model(catalog_model("llama3.1-70b"), catalog_system("h100-sxm"));
  DisaggConfig c{.decode = serve_config({.tp = 4}, 8000, 1000, 64), .prefill = {.tp = 1}, .max_gpus = 16};
  const ServeProjection p = disaggregated(model, c);
  REQUIRE(p.disaggregation.has_value());
  const ServeDisaggregation& d = *p.disaggregation;
  CHECK(d.prefill_workers > d.decode_workers);  // 8000-token prompts: prefill is the slower side
  CHECK(p.gpus() == d.prefill_workers * 1 + d.decode_workers * 4);
  CHECK(p.gpus() <= 16);
  CHECK(p.output_tokens_per_s_per_gpu == doctest::Approx(p.output_tokens_per_s / p.gpus()));
  CHECK(p.requests_per_s <= d.decode_workers * d.decode_requests_per_s * (1 + 1e-9));
  CHECK(d.prefill_utilisation <= 0.8 + 1e-9);
  // TPOT is the decode worker's iteration alone, TTFT the prefill and the transfer.
  CHECK(p.tpot.median == doctest::Approx(p.decode_step.seconds));
  CHECK(p.ttft.median > d.prefill_iteration + d.kv_transfer);
  REQUIRE(p.usd_per_million_output_tokens.has_value());
  CHECK(*p.usd_per_million_output_tokens == doctest::Approx(2.0 * p.gpus() / 3600 / p.output_tokens_per_s * 1e6));
}

TEST_CASE("with Poisson arrivals the prefill load is held where TTFT p99 meets the SLO") {
  const ServeModel model(catalog_model("llama3.1-70b"), catalog_system("h100-sxm"));
  DisaggConfig c{.decode = serve_config({.tp = 4}, 8000, 1000, 64), .prefill = {.tp = 4}, .max_gpus = 16};
  c.poisson = true;
  const ServeProjection loose = disaggregated(model, c);
  c.ttft_slo = 2.0;
  const ServeProjection tight = disaggregated(model, c);
  CHECK(tight.ttft.p99 <= 2.0 + 1e-6);
  CHECK(tight.disaggregation->prefill_utilisation < loose.disaggregation->prefill_utilisation);
  CHECK(loose.ttft.p99 > loose.ttft.median);
}

TEST_CASE("disaggregated serving with zero workers on one side, or a decode worker that does not fit, is refused") {
  const ServeModel model(catalog_model("llama3.1-70b"), catalog_system("h100-sxm"));
  DisaggConfig c{.decode = serve_config({.tp = 4}, 8000, 1000, 64), .prefill = {.tp = 4}};
  c.prefill_workers = 1;
  c.decode_workers = 0;
  const auto none = project_disaggregated(model, c, std::nullopt);
  REQUIRE_FALSE(none.has_value());
  CHECK(none.error().message ==
        "disaggregated serving needs at least one prefill and one decode worker, got 1 prefill and 0 decode (0 and "
        "0: chosen by rate matching)");
  c.prefill_workers = c.decode_workers = 0;
  c.decode.layout = {.tp = 1};
  c.decode.precision = c.decode.kv_precision = Precision::bf16;
  const auto big = project_disaggregated(model, c, std::nullopt);
  REQUIRE_FALSE(big.has_value());
  CHECK(big.error().message.find("decode worker: ") == 0);
}

TEST_CASE("a disaggregated deployment takes its engine's calibration: the decode workers' TPOT and the TTFT") {
  const ServeModel model(catalog_model("llama3.1-70b"), catalog_system("h100-sxm"));
  DisaggConfig c{.decode = serve_config({.tp = 4}, 2000, 500, 64),
                 .prefill = {.tp = 2},
                 .prefill_workers = 1,
                 .decode_workers = 2};
  const ServeProjection physical = disaggregated(model, c);
  c.decode.engine_calibration = true;
  c.decode.engine = ServeEngine::sglang;
  const ServeProjection calibrated = disaggregated(model, c);
  REQUIRE(calibrated.calibration);
  CHECK_FALSE(physical.calibration);
  CHECK(physical.prefill_wave > 0);
  const ServeFeatures f{.ttft = physical.ttft.mean,
                        .tpot = physical.tpot.mean,
                        .wave = physical.prefill_wave,
                        .kernels = physical.decode_step.kernels};
  CHECK(calibrated.tpot.mean == doctest::Approx(calibrated_tpot(*calibrated.calibration, f)));
  CHECK(calibrated.ttft.mean == doctest::Approx(calibrated_ttft(*calibrated.calibration, f)));
  // Closed loop over both decode workers: Little's law on the corrected E2E.
  CHECK(calibrated.requests_per_s == doctest::Approx(2 * 64 / calibrated.e2e.mean));
}

TEST_CASE("an attention-DP prefill worker packs each rank's own prompts") {
  const ServeModel model(catalog_model("deepseek-v3"), catalog_system("b200"));
  DisaggConfig c{.decode = serve_config({.tp = 8, .ep = 8}, 1000, 1000, 64, Precision::nvfp4),
                 .prefill = {.tp = 8, .pp = 1, .ep = 8, .attention_dp = true},
                 .prefill_workers = 1,
                 .decode_workers = 1};
  const ServeProjection dep = disaggregated(model, c);
  REQUIRE(dep.disaggregation);
  // 8 ranks of 8192-token budgets, 8 prompts of 1000 tokens each.
  CHECK(dep.disaggregation->prompts_per_iteration == 64);
  c.prefill = {.tp = 8, .pp = 1, .ep = 8};
  const ServeProjection tp = disaggregated(model, c);
  CHECK(tp.disaggregation->prompts_per_iteration == 8);
}
