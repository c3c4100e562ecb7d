// Dense peak tensor throughput of the GPUs we know, per GEMM precision, from the vendor datasheets: the
// denominator of "% of peak". A configuration key can always override it; the table is the fallback.
#pragma once

#include "dgx/llm/kernels/layer_spec.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace dgx::llm::kernels {

struct PeakFlops {
  double tflops = 0;   ///< dense, no sparsity
  std::string source;  ///< e.g. "NVIDIA H200 datasheet, dense BF16"
};

/// Looks the device name (as cudaGetDeviceProperties reports it, e.g. "NVIDIA H200") up in the table; nullopt
/// for an unknown device or a precision the device has no tensor-core peak for (FP8 before Hopper/Ada).
[[nodiscard]] std::optional<PeakFlops> builtin_peak(std::string_view device_name, Precision precision);

/// A peak from a configuration value when it is positive, else from the table; nullopt when neither knows.
[[nodiscard]] std::optional<PeakFlops> resolve_peak(double configured_tflops, std::string_view device_name,
                                                    Precision precision);

}  // namespace dgx::llm::kernels
