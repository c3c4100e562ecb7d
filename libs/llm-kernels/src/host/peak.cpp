#include "dgx/llm/kernels/peak.hpp"

namespace dgx::llm::kernels {

namespace {

struct Entry {
  std::string_view match;  ///< substring of the device name; the first matching entry wins
  std::string_view product;
  double bf16;  ///< dense TFLOP/s
  double fp8;   ///< dense TFLOP/s; 0: no FP8 tensor cores
};

// Dense (not 2:4 sparse) tensor-core peaks at boost clock from NVIDIA's datasheets. More specific names first:
// "H100 PCIe" and "H100 NVL" before the SXM "H100", "GH200" before "H200", "GB200" before "B200".
constexpr Entry kTable[] = {
    {"GH200", "GH200", 989.4, 1978.9},
    {"H200", "H200", 989.4, 1978.9},
    {"H100 PCIe", "H100 PCIe", 756.0, 1513.0},
    {"H100 NVL", "H100 NVL", 835.0, 1671.0},
    {"H100", "H100 SXM", 989.4, 1978.9},
    {"H800", "H800 SXM", 989.4, 1978.9},
    {"GB200", "GB200", 2500.0, 5000.0},
    {"B200", "B200", 2250.0, 4500.0},
    {"L40S", "L40S", 362.0, 733.0},
    {"A100", "A100", 312.0, 0.0},
};

}  // namespace

std::optional<PeakFlops> builtin_peak(std::string_view device_name, Precision precision) {
  for (const Entry& entry : kTable) {
    if (device_name.find(entry.match) == std::string_view::npos) continue;
    const double tflops = precision == Precision::fp8 ? entry.fp8 : entry.bf16;
    if (tflops <= 0) return std::nullopt;
    return PeakFlops{tflops, "NVIDIA " + std::string(entry.product) + " datasheet, dense " +
                                 (precision == Precision::fp8 ? "FP8" : "BF16")};
  }
  return std::nullopt;
}

std::optional<PeakFlops> resolve_peak(double configured_tflops, std::string_view device_name, Precision precision) {
  if (configured_tflops > 0) return PeakFlops{configured_tflops, "configuration"};
  return builtin_peak(device_name, precision);
}

}  // namespace dgx::llm::kernels
