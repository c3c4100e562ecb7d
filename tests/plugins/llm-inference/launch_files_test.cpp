#include "launch_files.hpp"

#include <doctest/doctest.h>

#include "llm_host.hpp"
#include "params.hpp"
#include "plugin.hpp"

using namespace dgx::plugins::llm_inference;
using InferenceHost = dgx::testing::LlmHost<InferenceWorkload, inference_params>;

namespace {

bool has(const std::string* text, const std::string& part) {
  return text != nullptr && text->find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("trtllm-serve and its extra_llm_api_options hold the projected layout, limits, KV format and drafts") {
  InferenceHost h;
  h.use_preset("llama70b-serve");
  h.set(key::tp, std::int64_t{4});
  h.set(key::concurrency, std::int64_t{32});
  h.set(key::speculative, std::string("eagle"));
  h.set(key::draft_tokens, std::int64_t{3});
  const Serving serving{dgx::sdk::Host(h.api())};
  const dgx::llm::ServeProjection p = serving.project_configuration();
  const LaunchFiles f = launch_files(serving.settings(), serving.assumptions(), p);
  REQUIRE(f.files.front().first == "trtllm-serve.sh");
  const std::string* serve = f.find("trtllm-serve.sh");
  CHECK(has(serve, "trtllm-serve 'nvidia/Llama-3.1-70B-Instruct-FP8' --backend pytorch"));
  CHECK(has(serve, "--tp_size 4 --pp_size 1 --ep_size 1"));
  CHECK(has(serve, "--max_batch_size 32 --max_num_tokens 8192"));
  CHECK(has(serve, "--extra_llm_api_options extra_llm_api_options.yaml"));
  const std::string* yaml = f.find("extra_llm_api_options.yaml");
  CHECK(has(yaml, "max_batch_size: 32\n"));
  CHECK(has(yaml, "enable_attention_dp: false\n"));
  CHECK(has(yaml, "kv_cache_config:\n  free_gpu_memory_fraction: 0.900\n  dtype: fp8\n"));
  CHECK(has(yaml, "speculative_config:\n  decoding_type: Eagle3\n  max_draft_len: 3\n"));
  const std::string* aiperf = f.find("aiperf.sh");
  CHECK(has(aiperf, "--synthetic-input-tokens-mean 1000"));
  CHECK(has(aiperf, "--output-tokens-mean 1000"));
  CHECK(has(aiperf, "--concurrency 32 --request-count 320"));
  CHECK(has(aiperf, "--goodput \"time_to_first_token:2000 inter_token_latency:50\""));
}

TEST_CASE("with serve.engine = vllm the launch file is vllm serve's flags, attention DP as data-parallel ranks") {
  InferenceHost h;
  h.set(key::model, std::string("deepseek-r1"));
  h.set(key::system, std::string("h200-sxm"));
  h.set(key::precision, std::vector<std::string>{"fp8"});
  h.set(key::tp, std::int64_t{8});
  h.set(key::ep, std::int64_t{8});
  h.set(key::attention_dp, true);
  h.set(key::engine, std::string("vllm"));
  h.set(key::request_rate, 2.0);
  h.set(key::requests, std::int64_t{200});
  const Serving serving{dgx::sdk::Host(h.api())};
  const LaunchFiles f = launch_files(serving.settings(), serving.assumptions(), serving.project_configuration());
  const std::string* serve = f.find("vllm-serve.sh");
  CHECK(has(serve, "vllm serve 'deepseek-ai/DeepSeek-R1'"));
  CHECK(has(serve, "--data-parallel-size 8 --tensor-parallel-size 1 --enable-expert-parallel"));
  CHECK(has(serve, "--kv-cache-dtype fp8"));
  CHECK(f.find("trtllm-serve.sh") == nullptr);
  CHECK(has(f.find("aiperf.sh"), "--request-rate 2 --request-count 200"));
}

TEST_CASE("explore hands the recommendation's launch files to the host (--emit DIR), scripts executable, and notes "
          "them") {
  InferenceHost h;
  h.use_preset("llama8b-serve");
  h.output_folder = "deploy";
  h.project(dgx::sdk::Mode::explore);
  CHECK(h.note("Launch files").find("Written for ") == 0);
  REQUIRE(h.written_files.count("trtllm-serve.sh") == 1);
  CHECK(h.written_files.count("aiperf.sh") == 1);
  CHECK(h.written_files["trtllm-serve.sh"].text.find("trtllm-serve 'nvidia/Llama-3.1-8B-Instruct-FP8'") !=
        std::string::npos);
  CHECK(h.written_files["trtllm-serve.sh"].mode == 0755);
  CHECK(h.written_files["extra_llm_api_options.yaml"].mode == 0644);
}

TEST_CASE("without --emit no launch file is written and no note says so") {
  InferenceHost h;
  h.use_preset("llama8b-serve");
  h.project(dgx::sdk::Mode::explore);
  CHECK(h.written_files.empty());
  CHECK(h.note("Launch files").empty());
}

TEST_CASE("a disaggregated deployment: each worker on GPUs of its own, the router over every context and generation "
          "worker") {
  InferenceHost h;
  h.use_preset("llama70b-serve");
  h.set(key::precision, std::vector<std::string>{"fp8"});
  h.set(key::isl, std::int64_t{8000});
  h.set(key::mode, std::string("disaggregated"));
  h.set(key::prefill_tp, std::int64_t{1});
  h.set(key::prefill_workers, std::int64_t{4});
  h.set(key::tp, std::int64_t{4});
  h.set(key::decode_workers, std::int64_t{1});
  const Serving serving{dgx::sdk::Host(h.api())};
  const LaunchFiles f = launch_files(serving.settings(), serving.assumptions(), serving.project_configuration());
  const std::string* serve = f.find("trtllm-serve.sh");
  for (const char* worker : {"CUDA_VISIBLE_DEVICES=0 trtllm-serve", "CUDA_VISIBLE_DEVICES=3 trtllm-serve",
                             "CUDA_VISIBLE_DEVICES=4,5,6,7 trtllm-serve"}) {
    CAPTURE(worker);
    CHECK(has(serve, worker));
  }
  CHECK_FALSE(has(serve, "CUDA_VISIBLE_DEVICES=8"));
  CHECK(has(serve, "--tp_size 4 --pp_size 1"));
  CHECK(has(serve, "trtllm-serve disaggregated -c disagg_config.yaml"));
  const std::string* router = f.find("disagg_config.yaml");
  CHECK(has(router, "context_servers:\n  num_instances: 4\n"));
  CHECK(has(router, "generation_servers:\n  num_instances: 1\n  urls:\n    - \"localhost:8005\"\n"));
  CHECK(has(f.find("gen_extra_llm_api_options.yaml"), "cache_transceiver_config:"));
}
