#include "plugin.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "llm_host.hpp"
#include "params.hpp"
#include "temp_dir.hpp"

using namespace dgx::plugins::llm_inference;
using InferenceHost = dgx::testing::LlmHost<InferenceWorkload, inference_params>;

namespace {

std::string error_of(InferenceHost& h) { return h.run("project"); }

}  // namespace

TEST_CASE("project emits one row with the interface's metrics, labelled projected, with its assumptions around it") {
  InferenceHost h;
  h.use_preset("llama70b-serve");
  h.project(dgx::sdk::Mode::project);
  REQUIRE(h.rows.size() == 1);
  const auto& row = h.rows.front();
  CHECK(row.mode == DGX_RESULT_PROJECTED);
  CHECK(h.visibility.front().table == "project");
  for (const char* m : {"ttft", "tpot", "e2e_latency", "output_tokens_per_s", "output_tokens_per_s_per_gpu",
                        "output_tokens_per_s_per_user", "requests_per_s", "mbu", "mfu", "kv_cache_tokens",
                        "max_concurrency", "usd_per_million_output_tokens"}) {
    CHECK_MESSAGE(row.metrics.count(m) == 1, m);
  }
  CHECK(row.metrics.at("output_tokens_per_s_per_gpu").first ==
        doctest::Approx(row.metrics.at("output_tokens_per_s").first / 2));
  CHECK(row.metrics.at("output_tokens_per_s_per_user").first == doctest::Approx(1 / row.metrics.at("tpot").first));
  CHECK(row.config.at("precision") == "\"fp8\"");
  CHECK(row.config.at("serve.kv_precision") == "\"fp8\"");
  CHECK(row.fields.at("layout") == "TP2 PP1");
  CHECK(row.fields.at("source").find("projected: dgx-llm-serve 2, system h100-sxm") == 0);
  CHECK(row.fields.at("tpot_definition").find("trtllm-bench's TPOT, AIPerf's ITL") != std::string::npos);
  for (const char* title :
       {"Latency", "Throughput and cost", "Memory per GPU", "Utilisation", "SLOs", "Definitions", "Projection"}) {
    CHECK_MESSAGE(!h.note(title).empty(), title);
  }
  CHECK(h.note("Assumptions").find("Model: Llama 3.1 70B") == 0);
  CHECK(h.note("Configuration").find("offline") != std::string::npos);
}

TEST_CASE("a spread of lengths is simulated: the row carries p99 latencies and says how they were obtained") {
  InferenceHost h;
  h.use_preset("llama8b-serve");
  h.set(key::concurrency, std::int64_t{16});
  h.set(key::isl_stdev, 200.0);
  h.set(key::osl_stdev, 200.0);
  h.project(dgx::sdk::Mode::project);
  const auto& row = h.rows.front();
  CHECK(row.metrics.count("ttft.p99") == 1);
  CHECK(row.metrics.at("e2e_latency.p99").first >= row.metrics.at("e2e_latency").first);
  CHECK(row.fields.at("latency").find("simulated: ") == 0);
}

TEST_CASE("bad input is a configuration error that names the reason") {
  InferenceHost big;
  big.use_preset("llama405b-serve");
  big.set(key::precision, std::vector<std::string>{"bf16"});
  big.set(key::tp, std::int64_t{4});
  big.set(key::fleet_gpus, std::int64_t{4});
  CHECK(error_of(big).find("needs 189.0 GiB of weights per GPU; h100-sxm has 80.0 GiB") != std::string::npos);
  InferenceHost context;
  context.use_preset("llama70b-serve");
  context.set(key::isl, std::int64_t{200000});
  CHECK(error_of(context) ==
        "llama3.1-70b on h100-sxm at TP2 PP1 in fp8: ISL 200000 exceeds the context of llama3.1-70b (131072 tokens)");
  InferenceHost full;
  full.use_preset("llama70b-serve");
  full.set(key::tp, std::int64_t{1});
  full.set(key::max_batch_tokens, std::int64_t{65536});
  CHECK(error_of(full).find("no memory left for a KV cache") != std::string::npos);
  InferenceHost fp4;
  fp4.use_preset("llama70b-serve");
  fp4.set(key::precision, std::vector<std::string>{"nvfp4"});
  CHECK(error_of(fp4).find("nvfp4 needs block-scaled FP4/FP8 tensor cores") != std::string::npos);
  InferenceHost fleet;
  fleet.use_preset("llama70b-serve");
  fleet.set(key::fleet_gpus, std::int64_t{3});
  CHECK(error_of(fleet) == "serve.fleet_gpus 3 is not a whole number of replicas of 2 GPUs (TP x PP)");
}

TEST_CASE("serving's deprecated gpus still sets the fleet, over a preset's serve.fleet_gpus, and says so") {
  InferenceHost old;
  old.use_preset("llama70b-serve");  // serve.fleet_gpus = 8
  old.set(key::gpus, std::int64_t{3});
  CHECK(error_of(old) == "serve.fleet_gpus 3 is not a whole number of replicas of 2 GPUs (TP x PP)");
  const auto warned = std::find_if(old.logs.begin(), old.logs.end(), [](const std::string& line) {
    return line.find("gpus is the deprecated name of serve.fleet_gpus") != std::string::npos &&
           line.find("read as serve.fleet_gpus=3 over serve.fleet_gpus 8") != std::string::npos;
  });
  CHECK(warned != old.logs.end());
}

TEST_CASE("an open-loop rate projects queueing: the row carries mean, p90, p99 and says whether it saturates") {
  InferenceHost h;
  h.use_preset("llama70b-serve");
  h.set(key::precision, std::vector<std::string>{"bf16"});
  h.set(key::tp, std::int64_t{4});
  h.set(key::isl, std::int64_t{467});
  h.set(key::osl, std::int64_t{256});
  h.set(key::request_rate, 32.0);
  h.set(key::requests, std::int64_t{300});
  h.project(dgx::sdk::Mode::project);
  REQUIRE(h.rows.size() == 1);
  const auto& row = h.rows.front();
  for (const char* m : {"ttft.mean", "ttft.p90", "ttft.p99", "tpot.p90", "itl.p99", "e2e_latency.mean", "request_rate",
                        "saturation_rate"}) {
    CHECK_MESSAGE(row.metrics.count(m) == 1, m);
  }
  CHECK(row.fields.at("saturated").find("yes") == 0);
  CHECK(row.fields.at("load").find("(saturated)") != std::string::npos);
  CHECK(row.fields.at("latency").find("simulated open loop: 300 requests arriving poisson") == 0);
  CHECK(row.fields.at("expected_error").find("TTFT ±50%") != std::string::npos);
  CHECK(h.note("Latency").find("Saturated: the offered load exceeds the") != std::string::npos);
  CHECK(h.note("Expected error").find("open-loop TTFT near saturation") != std::string::npos);
}

TEST_CASE("disaggregated: prefill and decode workers rate matched within the fleet, the KV transfer in TTFT") {
  InferenceHost h;
  h.use_preset("llama70b-serve");
  h.set(key::precision, std::vector<std::string>{"fp8"});
  h.set(key::mode, std::string("disaggregated"));
  h.set(key::tp, std::int64_t{4});
  h.set(key::prefill_tp, std::int64_t{2});
  h.set(key::isl, std::int64_t{8000});
  h.set(key::osl, std::int64_t{1000});
  h.set(key::concurrency, std::int64_t{32});
  h.project(dgx::sdk::Mode::project);
  REQUIRE(h.rows.size() == 1);
  const auto& row = h.rows.front();
  CHECK(row.fields.at("serving") == "disaggregated");
  CHECK(row.fields.at("layout").find("P TP2 PP1 + ") != std::string::npos);
  CHECK(row.metrics.at("gpus").first <= 8);
  CHECK(row.metrics.at("kv_transfer").first > 0);
  CHECK(h.note("Configuration").find("disaggregated workers: ") != std::string::npos);
  CHECK(h.note("Latency").find("the KV cache of 1311 MB per request moves in") != std::string::npos);
}

TEST_CASE("DeepSeek-R1 on 8 H200s with attention DP and EP 8 projects as DEP8 with MLA's KV cache") {
  InferenceHost h;
  h.set(key::model, std::string("deepseek-r1"));
  h.set(key::system, std::string("h200-sxm"));
  h.set(key::precision, std::vector<std::string>{"fp8"});
  h.set(key::tp, std::int64_t{8});
  h.set(key::ep, std::int64_t{8});
  h.set(key::attention_dp, true);
  h.project(dgx::sdk::Mode::project);
  REQUIRE(h.rows.size() == 1);
  const auto& row = h.rows.front();
  CHECK(row.fields.at("layout") == "DEP8 PP1");
  CHECK(row.metrics.at("memory.kv_bytes_per_token").first == doctest::Approx(61.0 * 576));
  CHECK(row.fields.at("expected_error").find("MoE, MLA and attention DP") != std::string::npos);
}

TEST_CASE("the serving modes' bad input names the reason") {
  InferenceHost dense_dp;
  dense_dp.use_preset("llama70b-serve");
  dense_dp.set(key::tp, std::int64_t{8});
  dense_dp.set(key::attention_dp, true);
  CHECK(error_of(dense_dp).find("attention data parallelism needs a mixture-of-experts model: llama3.1-70b is dense") !=
        std::string::npos);
  InferenceHost acceptance;
  acceptance.use_preset("llama70b-serve");
  acceptance.set(key::speculative, std::string("eagle"));
  acceptance.set(key::draft_tokens, std::int64_t{2});
  acceptance.set(key::acceptance, 2.5);
  CHECK(error_of(acceptance).find("must lie in [0, 2]: at most the draft length of 2 tokens can be accepted") !=
        std::string::npos);
  InferenceHost engine;
  engine.use_preset("llama70b-serve");
  engine.set(key::speculative, std::string("eagle"));
  engine.set(key::engine, std::string("vllm"));
  engine.set(key::pp, std::int64_t{2});
  engine.set(key::tp, std::int64_t{1});
  CHECK(error_of(engine).find("vLLM's speculative decoding does not run with pipeline parallelism") !=
        std::string::npos);
  InferenceHost mtp;
  mtp.use_preset("llama70b-serve");
  mtp.set(key::speculative, std::string("mtp"));
  CHECK(error_of(mtp).find("speculative = mtp needs the model's multi-token-prediction module") != std::string::npos);
  InferenceHost workers;
  workers.use_preset("llama70b-serve");
  workers.set(key::mode, std::string("disaggregated"));
  workers.set(key::prefill_workers, std::int64_t{4});
  workers.set(key::decode_workers, std::int64_t{4});
  CHECK(error_of(workers).find("gpus 8 cannot hold 4 prefill and 4 decode workers (16 GPUs)") != std::string::npos);
  InferenceHost empty;
  const dgx::testing::TempDir dir;
  empty.use_preset("llama70b-serve");
  empty.set(key::lengths, dir.write("empty.csv", "input,output\n").string());
  CHECK(error_of(empty).find("empty.csv: no requests") != std::string::npos);
}
