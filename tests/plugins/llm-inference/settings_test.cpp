#include "settings.hpp"

#include <doctest/doctest.h>

#include "config_error.hpp"
#include "llm_host.hpp"
#include "params.hpp"
#include "plugin.hpp"

using namespace dgx::plugins::llm_inference;
using InferenceHost = dgx::testing::LlmHost<InferenceWorkload, inference_params>;

namespace {

std::string settings_error_of(InferenceHost& h) {
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
  CHECK(settings_error_of(h) == "precision: 'fp16' is not one of bf16, fp8, mxfp8, nvfp4, fp8-block, mxfp4, int4");
  InferenceHost kv;
  kv.set(key::kv_precision, std::string("mxfp8"));
  CHECK(settings_error_of(kv) == "serve.kv_precision: 'mxfp8' is not one of auto, bf16, fp8, nvfp4");
  InferenceHost load;
  load.set(key::concurrency, std::int64_t{-1});
  CHECK(settings_error_of(load) == "serve.concurrency must be at least 0, got -1");
  InferenceHost fraction;
  fraction.set(key::kv_cache_fraction, 1.5);
  CHECK(settings_error_of(fraction) == "serve.kv_cache_fraction must lie in (0, 1], got 1.500");
  InferenceHost rows;
  rows.set(key::explore_rows, std::string("some"));
  CHECK(settings_error_of(rows) == "explore.rows: 'some' is not one of front, all");
  InferenceHost spread;
  spread.set(key::isl_stdev, -3.0);
  CHECK(settings_error_of(spread) == "serve.isl_stdev must be a standard deviation >= 0, got -3.000");
}

TEST_CASE("the open-loop, lengths, speculative and disaggregated keys are read and checked by name") {
  InferenceHost rate;
  rate.set(key::request_rate, 0.0);
  CHECK(settings_error_of(rate) ==
        "serve.request_rate must be > 0 requests/s (an open-loop load), got 0.000; for a closed "
        "loop leave it unset and set serve.concurrency");
  InferenceHost negative;
  negative.set(key::request_rate, -2.0);
  CHECK(settings_error_of(negative).find("serve.request_rate must be > 0 requests/s") == 0);
  InferenceHost arrival;
  arrival.set(key::arrival, std::string("bursty"));
  CHECK(settings_error_of(arrival) == "serve.arrival: 'bursty' is not one of poisson, constant, burst");
  InferenceHost lengths;
  lengths.set(key::lengths, std::string("/nonexistent/chats.csv"));
  CHECK(settings_error_of(lengths) == "serve.lengths: /nonexistent/chats.csv: cannot open the lengths file");
  InferenceHost speculative;
  speculative.set(key::speculative, std::string("medusa"));
  CHECK(settings_error_of(speculative) == "serve.speculative: 'medusa' is not one of none, mtp, eagle, draft");
  InferenceHost draft;
  draft.set(key::speculative, std::string("draft"));
  draft.set(key::draft_model, std::string("llama-tiny"));
  CHECK(settings_error_of(draft).find("serve.draft_model") != std::string::npos);
  InferenceHost workers;
  workers.set(key::mode, std::string("disaggregated"));
  workers.set(key::prefill_workers, std::int64_t{2});
  CHECK(settings_error_of(workers) ==
        "disaggregated serving needs at least one prefill and one decode worker: "
        "serve.prefill_workers = 2, serve.decode_workers = 0 (both 0: chosen by rate matching)");
  InferenceHost ok;
  ok.set(key::request_rate, 4.0);
  ok.set(key::speculative, std::string("eagle"));
  ok.set(key::attention_dp, true);
  const InferenceSettings s = read_settings(dgx::sdk::Host(ok.api()));
  CHECK(s.config.request_rate == 4.0);
  CHECK(s.config.speculative.kind == dgx::llm::Speculation::eagle);
  CHECK(s.config.speculative.draft_tokens == 3);
  CHECK(s.config.speculative.accepted == doctest::Approx(1.5));
  CHECK(s.config.layout.attention_dp);
}

TEST_CASE("a lengths file sets the mean lengths and drives the simulation") {
  InferenceHost h;
  h.set(key::lengths, std::string(DGX_SOURCE_DIR "/configs/lengths/sharegpt-like.csv"));
  const InferenceSettings s = read_settings(dgx::sdk::Host(h.api()));
  REQUIRE(s.config.lengths != nullptr);
  CHECK(s.config.isl == 267);
  CHECK(s.config.osl == 290);
  CHECK(s.config.has_spread());
}

TEST_CASE("a checkpoint with a line break is refused before any work: it could be no word of a launch file") {
  for (const char* bad : {"org/model\ntouch PWNED", "org/model\xe2\x80\xa8x"}) {
    InferenceHost h;
    h.set(key::checkpoint, std::string(bad));
    CHECK(settings_error_of(h).find("serve.checkpoint: the checkpoint holds a line break (U+") == 0);
  }
  InferenceHost h;
  h.set(key::checkpoint, std::string("/models/it's mine"));
  CHECK(settings_error_of(h).empty());
}
