#include "settings.hpp"

#include <doctest/doctest.h>

#include "config_error.hpp"
#include "llm_host.hpp"
#include "params.hpp"
#include "plugin.hpp"

using namespace dgx::plugins::llm_inference;
using InferenceHost = dgx::testing::LlmHost<InferenceWorkload, inference_params>;

namespace {

std::string error_of(InferenceHost& h) {
  return dgx::testing::config_error_of([&] { (void)read_settings(dgx::sdk::Host(h.api())); });
}

}  // namespace

TEST_CASE("the defaults are the llama8b-serve preset's configuration") {
  InferenceHost h;
  const InferenceSettings s = read_settings(dgx::sdk::Host(h.api()));
  CHECK(s.model == "llama3.1-8b");
  CHECK(s.system == "h100-sxm");
  CHECK(s.gpus == 8);
  CHECK(s.precisions == std::vector<dgx::llm::Precision>{dgx::llm::Precision::bf16, dgx::llm::Precision::fp8});
  CHECK(s.config.isl == 1000);
  CHECK(s.config.osl == 1000);
  CHECK(s.config.concurrency == 0);
  CHECK(s.config.batch_tokens() == 8192);
  CHECK(s.slo.ttft == 2.0);
  CHECK(s.slo.tpot == 0.05);
  CHECK_FALSE(s.explore_all_rows);
}

TEST_CASE("the KV cache format follows the weights unless it is set") {
  InferenceHost h;
  h.set(key::precision, std::vector<std::string>{"fp8"});
  InferenceSettings s = read_settings(dgx::sdk::Host(h.api()));
  CHECK(s.config.kv_precision == dgx::llm::Precision::fp8);
  CHECK(s.kv_precision_for(dgx::llm::Precision::bf16) == dgx::llm::Precision::bf16);
  h.set(key::kv_precision, std::string("bf16"));
  s = read_settings(dgx::sdk::Host(h.api()));
  CHECK(s.config.kv_precision == dgx::llm::Precision::bf16);
  CHECK(s.kv_precision_for(dgx::llm::Precision::fp8) == dgx::llm::Precision::bf16);
}

TEST_CASE("out-of-range values and unknown choices name the key") {
  InferenceHost h;
  h.set(key::precision, std::vector<std::string>{"fp16"});
  CHECK(error_of(h) == "precision: 'fp16' is not one of bf16, fp8, mxfp8, nvfp4");
  InferenceHost kv;
  kv.set(key::kv_precision, std::string("mxfp8"));
  CHECK(error_of(kv) == "serve.kv_precision: 'mxfp8' is not one of auto, bf16, fp8, nvfp4");
  InferenceHost load;
  load.set(key::concurrency, std::int64_t{-1});
  CHECK(error_of(load) == "serve.concurrency must be at least 0, got -1");
  InferenceHost fraction;
  fraction.set(key::kv_cache_fraction, 1.5);
  CHECK(error_of(fraction) == "serve.kv_cache_fraction must lie in (0, 1], got 1.500");
  InferenceHost rows;
  rows.set(key::explore_rows, std::string("some"));
  CHECK(error_of(rows) == "explore.rows: 'some' is not one of front, all");
  InferenceHost spread;
  spread.set(key::isl_stdev, -3.0);
  CHECK(error_of(spread) == "serve.isl_stdev must be a standard deviation >= 0, got -3.000");
}
