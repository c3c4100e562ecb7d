#include "params.hpp"

#include <doctest/doctest.h>

#include "llm_host.hpp"
#include "plugin.hpp"

#include <algorithm>
#include <string>

using namespace dgx::plugins::llm_inference;
using InferenceHost = dgx::testing::LlmHost<InferenceWorkload, inference_params>;

namespace {

const dgx::sdk::Param& param(const std::vector<dgx::sdk::Param>& params, const std::string& key) {
  const auto it = std::find_if(params.begin(), params.end(), [&](const auto& p) { return p.key == key; });
  REQUIRE_MESSAGE(it != params.end(), key);
  return *it;
}

}  // namespace

TEST_CASE("the keys users' scripts rely on are in the schema") {
  const auto params = inference_params();
  for (const char* k : {"model", "system", "gpus", "precision", "serve.kv_precision", "parallel.tp", "parallel.pp",
                        "parallel.ep", "serve.isl", "serve.osl", "serve.concurrency", "serve.max_batch_tokens",
                        "serve.slo.ttft", "serve.slo.tpot", "cost.provider"}) {
    CHECK_MESSAGE(std::any_of(params.begin(), params.end(), [&](const auto& p) { return p.key == k; }), k);
  }
}

TEST_CASE("every key of every serving preset is a declared parameter") {
  const auto params = inference_params();
  for (const std::string name : {"llama8b-serve", "llama70b-serve", "llama405b-serve", "mixtral8x7b-serve"}) {
    InferenceHost h;
    h.use_preset(name);
    for (const auto& entry : h.config) {
      const auto& k = entry.first;  // not a structured binding: clang 14 (sanitizer build) cannot capture one
      CHECK_MESSAGE(std::any_of(params.begin(), params.end(), [&](const auto& p) { return p.key == k; }),
                    name << ": " << k);
    }
  }
}

TEST_CASE("the defaults are the llama8b-serve preset") {
  InferenceHost defaults;
  InferenceHost preset;
  preset.use_preset("llama8b-serve");
  for (const auto& entry : preset.config) {  // no structured binding: clang 14 cannot capture one in CHECK_MESSAGE
    CHECK_MESSAGE(defaults.config.at(entry.first) == entry.second, entry.first);
  }
}

TEST_CASE("--describe defines the metrics where their keys are: TPOT as trtllm-bench and AIPerf do, MBU, cost") {
  const auto params = inference_params();
  const std::string tpot = param(params, key::slo_tpot).help;
  CHECK(tpot.find("TPOT = (E2E - TTFT) / (output tokens - 1)") != std::string::npos);
  CHECK(tpot.find("trtllm-bench's TPOT and AIPerf's ITL") != std::string::npos);
  CHECK(tpot.find("NOT vLLM's ITL") != std::string::npos);
  CHECK(param(params, key::kv_precision)
            .help.find("mbu = (weight bytes + KV bytes read per decode iteration) / TPOT "
                       "/ HBM peak") != std::string::npos);
  CHECK(param(params, key::precision).help.find("mfu = ") != std::string::npos);
  CHECK(param(params, key::provider).help.find("usd_per_million_output_tokens = ") != std::string::npos);
  CHECK(param(params, key::concurrency).help.find("output_tokens_per_s = output tokens / duration") !=
        std::string::npos);
}
