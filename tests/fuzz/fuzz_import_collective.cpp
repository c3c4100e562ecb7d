// Collective benchmarks: nccl-tests and rccl-tests tables of every vintage.
#include <cstddef>
#include <cstdint>

#include "dgx/log_import/formats.hpp"
#include "fuzz_import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<std::pair<std::string, std::string>> kSets = {
      {"system", "\"h100-sxm\""}, {"world_size", "8"}, {"comm.collective", "\"all_reduce\""}};
  static const std::vector<dgx::sdk::FormatSpec> kFormats = dgx::logs::collective_formats();
  dgx::fuzz::fuzz_import(std::string_view(reinterpret_cast<const char*>(data), size), {dgx::logs::parse_nccl_tests},
                         kFormats, kSets);
  return 0;
}
