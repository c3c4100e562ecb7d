#include "plugin.hpp"

#include <doctest/doctest.h>

#include "llm_host.hpp"
#include "params.hpp"

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
  big.set(key::gpus, std::int64_t{4});
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
  fleet.set(key::gpus, std::int64_t{3});
  CHECK(error_of(fleet) == "gpus 3 is not a whole number of replicas of 2 GPUs (TP x PP)");
}
