// Training logs: NeMo, Megatron-LM (and its forks), torchtitan, MLPerf Training's MLLOG.
#include <cstddef>
#include <cstdint>

#include "dgx/log_import/formats.hpp"
#include "fuzz_import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<std::pair<std::string, std::string>> kSets = {
      {"system", "\"h100-sxm\""},   {"gpus", "8"},        {"precision", "\"bf16\""},
      {"model", "\"llama3.1-8b\""}, {"train.gbs", "128"}, {"train.seq_len", "8192"}};
  static const std::vector<dgx::sdk::FormatSpec> kFormats = dgx::logs::training_formats();
  using namespace dgx::logs;
  dgx::fuzz::fuzz_import(std::string_view(reinterpret_cast<const char*>(data), size),
                         {parse_nemo_log, parse_megatron_log, parse_torchtitan_log, parse_mllog}, kFormats, kSets);
  return 0;
}
