// Collective benchmarks: nccl-tests and rccl-tests tables of every vintage.
#include <cstddef>
#include <cstdint>

#include "fuzz_import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<std::string> kSets = {"system=h100-sxm", "world_size=8", "comm.collective=all_reduce"};
  dgx::fuzz::fuzz_import(std::string_view(reinterpret_cast<const char*>(data), size), {dgx::detail::parse_nccl_tests},
                         kSets);
  return 0;
}
