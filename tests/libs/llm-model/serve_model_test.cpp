#include "dgx/llm/serve_model.hpp"

#include "dgx/llm/serve_simulation.hpp"

#include "catalog_fixtures.hpp"
#include "serve_fixtures.hpp"

#include <doctest/doctest.h>

using namespace dgx::llm;
using namespace dgx::llm::testing;

namespace {

ServeProjection projected(const ServeModel& model, const ServeConfig& c) {
  const auto p = model.project(c, Price{.usd_per_gpu_hour = 3.0, .label = "test"});
  REQUIRE_MESSAGE(p.has_value(), (p ? "" : p.error().message));
  return *p;
}

}  // namespace

TEST_CASE("at concurrency 1 a decode iteration streams the weights: TPOT near the memory roofline, high MBU") {
  const ServeModel model(catalog_model("llama3.1-70b"), catalog_system("h200-sxm"));
  const ServeProjection p = projected(model, serve_config({.tp = 1}, 1000, 1000, 1));
  // 70.6 GB of weights (68.5 FP8 + 2.1 BF16 LM head) at 4.8 TB/s is 14.7 ms; the roofline sustains 80% of the
  // bandwidth, and ~1000 kernels' overheads and the engine's iteration overhead come on top.
  CHECK(p.tpot.median > 0.0147 / 0.8);
  CHECK(p.tpot.median < 0.03);
  CHECK(p.mbu > 0.5);
  CHECK(p.mbu < 0.8);
  CHECK(p.output_tokens_per_s_per_user == doctest::Approx(1.0 / p.tpot.median));
  CHECK(p.e2e.median == doctest::Approx(p.ttft.median + 999 * p.tpot.median));
  CHECK(p.output_tokens_per_s == doctest::Approx(1000 / p.e2e.median));
  CHECK(p.in_flight == 1);
  CHECK(!p.simulated);
}

TEST_CASE("more requests in flight trade per-user speed for throughput, until the KV cache is full") {
  const ServeModel model(catalog_model("llama3.1-70b"), catalog_system("h100-sxm"));
  const ServeProjection one = projected(model, serve_config({.tp = 2}, 1000, 1000, 1));
  const ServeProjection many = projected(model, serve_config({.tp = 2}, 1000, 1000, 64));
  const ServeProjection offline = projected(model, serve_config({.tp = 2}, 1000, 1000, 0));
  CHECK(many.output_tokens_per_s > 20 * one.output_tokens_per_s);
  CHECK(offline.output_tokens_per_s > many.output_tokens_per_s);
  CHECK(many.output_tokens_per_s_per_user < one.output_tokens_per_s_per_user);
  CHECK(offline.offline);
  CHECK(offline.in_flight == offline.capacity.max_concurrency);
  CHECK(offline.output_tokens_per_s_per_gpu == doctest::Approx(offline.output_tokens_per_s / 2));
  REQUIRE(offline.usd_per_million_output_tokens.has_value());
  CHECK(*offline.usd_per_million_output_tokens == doctest::Approx(3.0 * 2 / 3600 / offline.output_tokens_per_s * 1e6));
  // Beyond what fits, requests queue: the same throughput, a longer TTFT.
  ServeConfig beyond = serve_config({.tp = 2}, 1000, 1000, 2 * offline.capacity.max_concurrency);
  const ServeProjection queued = projected(model, beyond);
  CHECK(queued.in_flight == offline.in_flight);
  CHECK(queued.output_tokens_per_s == doctest::Approx(offline.output_tokens_per_s));
  CHECK(queued.queue_wait > 1.0);
  CHECK(queued.ttft.median == doctest::Approx(offline.ttft.median + queued.queue_wait));
}

TEST_CASE("prefill is compute bound: its MFU is far above decode's and TTFT grows with the prompt") {
  const ServeModel model(catalog_model("llama3.1-8b"), catalog_system("h100-sxm"));
  const ServeProjection short_prompt = projected(model, serve_config({.tp = 1}, 256, 128, 1));
  const ServeProjection long_prompt = projected(model, serve_config({.tp = 1}, 8192, 128, 1));
  CHECK(long_prompt.ttft.median > 10 * short_prompt.ttft.median);
  CHECK(long_prompt.mfu > 0.3);
  CHECK(long_prompt.mfu < 0.8);
}

TEST_CASE("one output token: every iteration is a prompt, TPOT is undefined and reported as 0") {
  const ServeModel model(catalog_model("llama3.1-8b"), catalog_system("h100-sxm"));
  const ServeProjection p = projected(model, serve_config({.tp = 1}, 1024, 1, 4));
  CHECK(p.tpot.median == 0);
  CHECK(p.output_tokens_per_s_per_user == 0);
  CHECK(p.requests_per_s > 0);
  CHECK(p.output_tokens_per_s == doctest::Approx(p.requests_per_s));
}

TEST_CASE("lengths with a spread are simulated: medians near the steady state, a 99th percentile above them") {
  const ServeModel model(catalog_model("llama3.1-70b"), catalog_system("h100-sxm"));
  const ServeProjection fixed = projected(model, serve_config({.tp = 2}, 1000, 1000, 32));
  ServeConfig spread = serve_config({.tp = 2}, 1000, 1000, 32);
  spread.isl_stdev = 200;
  spread.osl_stdev = 200;
  const ServeProjection p = projected(model, spread);
  CHECK(p.simulated);
  CHECK(p.simulated_requests > 100);
  CHECK(p.tpot.median == doctest::Approx(fixed.tpot.median).epsilon(0.1));
  CHECK(p.output_tokens_per_s == doctest::Approx(fixed.output_tokens_per_s).epsilon(0.15));
  CHECK(p.e2e.p99 > p.e2e.median);
  CHECK(p.ttft.p99 >= p.ttft.median);
}

TEST_CASE("quantiles interpolate linearly between ranks, as numpy's default") {
  CHECK(quantile({1, 2, 3, 4}, 0.5) == doctest::Approx(2.5));
  CHECK(quantile({10, 0, 5}, 0.99) == doctest::Approx(9.9));
  CHECK(quantile({}, 0.5) == 0);
}

TEST_CASE("invalid or impossible configurations are errors naming the reason") {
  const ServeModel model(catalog_model("llama3.1-70b"), catalog_system("h100-sxm"));
  const auto hopper_fp4 = model.project(serve_config({.tp = 2}, 128, 128, 0, Precision::nvfp4));
  REQUIRE_FALSE(hopper_fp4.has_value());
  CHECK(hopper_fp4.error().message.find("nvfp4 needs") == 0);
  const auto too_big = model.project(serve_config({.tp = 1}, 128, 128, 0, Precision::bf16));
  REQUIRE_FALSE(too_big.has_value());
  CHECK(too_big.error().message.find("of weights per GPU; h100-sxm has 80.0 GiB") != std::string::npos);
  ServeConfig huge = serve_config({.tp = 1}, 120000, 8000, 0);
  const auto no_room = model.project(huge);
  REQUIRE_FALSE(no_room.has_value());
  CHECK(no_room.error().message.find("one request of 128000 tokens (ISL + OSL) does not fit the KV cache of") == 0);
}

TEST_CASE("pipeline stages re-read their weights per micro-batch: PP does not speed a single request up") {
  const ServeModel model(catalog_model("llama3.1-70b"), catalog_system("h100-sxm"));
  const ServeProjection tp2 = projected(model, serve_config({.tp = 2}, 1000, 1000, 1));
  const ServeProjection pp2 = projected(model, serve_config({.tp = 1, .pp = 2}, 1000, 1000, 1));
  CHECK(pp2.tpot.median > tp2.tpot.median);
  CHECK(pp2.decode_step.pp_comm > 0);
}

TEST_CASE("batch-1 decode at TP8 costs the weight read plus derived per-token overheads, not a fitted constant") {
  const ServeModel model(catalog_model("llama3.1-70b"), catalog_system("h100-sxm"));
  const ServeProjection tp8 = projected(model, serve_config({.tp = 8}, 1000, 1000, 1));
  const ServeProjection tp4 = projected(model, serve_config({.tp = 4}, 1000, 1000, 1));
  // The weight-read floor: a GPU's bytes at the HBM peak (2.6 ms at TP8, 5.3 ms at TP4).
  const double floor8 = tp8.decode_step.weight_bytes / 3.35e12;
  const double floor4 = tp4.decode_step.weight_bytes / 3.35e12;
  CHECK(floor8 == doctest::Approx(2.65e-3).epsilon(0.05));
  // Above it: the sustained 80% of HBM, ~1000 kernels at 2 us inside a CUDA graph, 160 one-shot all-reduces.
  CHECK(tp8.tpot.median > floor8 / 0.8);
  CHECK(tp8.tpot.median < 2.3 * floor8);
  CHECK(tp4.tpot.median < 1.8 * floor4);
  CHECK(tp8.tpot.median < tp4.tpot.median);
  // The host's executor loop (~0.3 ms) hides under the GPU's iteration: only the boundary between iterations shows.
  CHECK(tp8.decode_step.overhead == doctest::Approx(20e-6));
  CHECK(tp8.decode_step.tp_comm < 0.5e-3);
}

TEST_CASE("the host's work is exposed only where it exceeds the GPU's iteration") {
  CHECK(ServeStepModel::exposed_host_seconds(0.010, 100) == doctest::Approx(20e-6));
  CHECK(ServeStepModel::exposed_host_seconds(0.0001, 100) == doctest::Approx(300e-6 + 400e-6 - 100e-6 + 20e-6));
}

TEST_CASE("speculative decoding: accepted drafts cut TPOT at small batches, the drafter and the wider verify pass cost "
          "their share") {
  const ServeModel model(catalog_model("llama3.1-70b"), catalog_system("h100-sxm"));
  ServeConfig plain = serve_config({.tp = 8}, 1000, 1000, 1);
  ServeConfig eagle = plain;
  eagle.speculative =
      SpeculativeConfig{.kind = Speculation::eagle, .draft_tokens = 3, .accepted = 2, .draft_model = {}};
  const ServeProjection a = projected(model, plain);
  const ServeProjection b = projected(model, eagle);
  CHECK(b.decode_step.draft > 0);
  CHECK(b.decode_step.seconds > a.decode_step.seconds);  // the drafter and 4 positions per request
  CHECK(b.tpot.median == doctest::Approx(b.decode_step.seconds / 3).epsilon(0.03));  // 3 tokens a step
  CHECK(b.tpot.median < a.tpot.median / 1.8);
  // Nothing accepted: all cost, no gain.
  eagle.speculative.accepted = 0;
  CHECK(projected(model, eagle).tpot.median > a.tpot.median);
  // Offline, the batch is compute-heavier and the gain shrinks.
  plain.concurrency = eagle.concurrency = 0;
  eagle.speculative.accepted = 2;
  const double offline_gain = projected(model, eagle).output_tokens_per_s / projected(model, plain).output_tokens_per_s;
  CHECK(offline_gain < a.tpot.median / b.tpot.median);
}

TEST_CASE("DeepSeek-R1 with attention DP and EP 8 on 8 H200s holds far more requests than at TP8, each GPU its own") {
  const ServeModel model(catalog_model("deepseek-r1"), catalog_system("h200-sxm"));
  ServeConfig tp8 = serve_config({.tp = 8, .pp = 1, .ep = 8}, 1000, 1000, 0);
  ServeConfig dep8 = serve_config({.tp = 8, .pp = 1, .ep = 8, .attention_dp = true}, 1000, 1000, 0);
  const ServeProjection a = projected(model, tp8);
  const ServeProjection b = projected(model, dep8);
  // TP8 replicates MLA's latent on every GPU; attention DP keeps each request on one GPU.
  CHECK(b.capacity.kv_tokens > 5 * a.capacity.kv_tokens);
  CHECK(b.output_tokens_per_s > a.output_tokens_per_s);
  CHECK(b.decode_step.ep_comm > 0);
  CHECK(b.decode_step.tp_comm == 0);
  CHECK(a.capacity.memory.weights > 80e9);  // 671B parameters in FP8 over 8 GPUs
}

TEST_CASE("a grouped model whose groups are all of the default kind serves as the ungrouped model does") {
  const ModelConfig plain = catalog_model("qwen3-30b-a3b");
  ModelConfig grouped = plain;
  for (const int count : {12, 36}) {
    LayerGroup group = plain.layer_mix().front();
    group.count = count;
    grouped.layer_groups.push_back(group);
  }
  const SystemProfile h100 = catalog_system("h100-sxm");
  for (const ServeLayout layout :
       {ServeLayout{.tp = 2}, ServeLayout{.tp = 4, .ep = 4}, ServeLayout{.tp = 2, .pp = 2}}) {
    const ServeConfig c = serve_config(layout, 2000, 500, 32);
    const ServeProjection a = projected(ServeModel(plain, h100), c);
    const ServeProjection b = projected(ServeModel(grouped, h100), c);
    CHECK(b.tpot.median == doctest::Approx(a.tpot.median).epsilon(1e-9));
    CHECK(b.ttft.median == doctest::Approx(a.ttft.median).epsilon(1e-9));
    CHECK(b.capacity.memory.weights == doctest::Approx(a.capacity.memory.weights).epsilon(1e-9));
    CHECK(b.capacity.max_concurrency == a.capacity.max_concurrency);
    CHECK(b.capacity.kv_tokens == doctest::Approx(a.capacity.kv_tokens).epsilon(1e-9));
    CHECK(b.mfu == doctest::Approx(a.mfu).epsilon(1e-9));
  }
}

TEST_CASE(
    "hybrid models serve: fixed recurrent states raise how many requests fit and keep decode cheap at long context") {
  const SystemProfile h100 = catalog_system("h100-sxm");
  const ModelConfig nemotron = fixture_model("nemotron-h-8b-like");
  const ServeModel model(nemotron, h100);
  const ServeProjection p = projected(model, serve_config({.tp = 1}, 4000, 1000, 0));
  CHECK(p.tpot.median > 0);
  CHECK(p.output_tokens_per_s > 0);
  // What one request keeps: its 4 attention layers' KV of 5000 tokens and its 24 Mamba-2 states.
  const ServeMemory& m = p.capacity.memory;
  CHECK(p.capacity.max_concurrency ==
        std::min(p.config.replica_batch_size(), static_cast<int>(m.kv_cache / m.kv.bytes(5000))));
  // The same model with attention in every mixer layer keeps 7× the KV per token: fewer requests fit.
  ModelConfig all_attention = nemotron;
  all_attention.layer_groups[0].mixer = Mixer::attention;
  const ServeProjection dense = projected(ServeModel(all_attention, h100), serve_config({.tp = 1}, 4000, 1000, 0));
  CHECK(dense.capacity.max_concurrency < p.capacity.max_concurrency);
  const ServeProjection qwen =
      projected(ServeModel(fixture_model("qwen3.5-27b-like"), h100), serve_config({.tp = 4}, 8000, 1000, 64));
  CHECK(qwen.tpot.median > 0);
  CHECK(qwen.ttft.median > 0);
  CHECK(qwen.mfu > 0);
}

TEST_CASE("under a closed loop the engine's calibration corrects TTFT and TPOT and records the physical values") {
  const ServeModel serve(catalog_model("llama3.1-70b"), catalog_system("h100-sxm"));
  ServeConfig c = serve_config({.tp = 4}, 2000, 500, 32);
  const auto physical = serve.project(c);
  c.engine_calibration = true;
  c.engine = ServeEngine::vllm;
  const auto calibrated = serve.project(c);
  REQUIRE(physical);
  REQUIRE(calibrated);
  REQUIRE(calibrated->calibration);
  CHECK_FALSE(physical->calibration);
  const EngineCalibration& k = *calibrated->calibration;
  const ServeFeatures f{.ttft = physical->ttft.mean,
                        .tpot = physical->tpot.mean,
                        .wave = physical->prefill_wave,
                        .kernels = physical->decode_step.kernels};
  CHECK(f.kernels > 80 * 10);  // 80 layers of a dozen kernels and more
  CHECK(calibrated->model_tpot == doctest::Approx(physical->tpot.mean));
  CHECK(calibrated->tpot.mean == doctest::Approx(calibrated_tpot(k, f)));
  CHECK(calibrated->ttft.mean == doctest::Approx(calibrated_ttft(k, f)));
  // Little's law over the corrected latency: the requests in flight cycle once per E2E.
  CHECK(calibrated->requests_per_s == doctest::Approx(32 / calibrated->e2e.mean));
  CHECK(calibrated->engine.rfind("vLLM ", 0) == 0);
  // Offline throughput stays the physical model's (checked on configs/baselines/inference.toml).
  c.concurrency = 0;
  const auto offline = serve.project(c);
  REQUIRE(offline);
  CHECK_FALSE(offline->calibration);
}
