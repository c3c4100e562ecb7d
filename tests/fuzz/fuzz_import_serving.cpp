// Serving benchmarks: AIPerf and GenAI-Perf, vLLM's and SGLang's bench_serving, trtllm-bench, MLPerf Inference.
#include <cstddef>
#include <cstdint>

#include "dgx/log_import/formats.hpp"
#include "fuzz_import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<std::pair<std::string, std::string>> kSets = {
      {"system", "\"h100-sxm\""}, {"gpus", "8"}, {"precision", "\"fp8\""}, {"model", "\"llama3.1-8b\""}};
  static const std::vector<dgx::sdk::FormatSpec> kFormats = dgx::logs::serving_formats();
  using namespace dgx::logs;
  dgx::fuzz::fuzz_import(std::string_view(reinterpret_cast<const char*>(data), size),
                         {parse_aiperf, parse_genai_perf, parse_vllm_bench, parse_sglang_bench, parse_trtllm_bench,
                          parse_mlperf_inference},
                         kFormats, kSets);
  return 0;
}
