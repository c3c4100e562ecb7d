// The dense peak a measurement is compared with (MFU, % of peak), and the system profile it comes from. Peaks live in
// configs/systems only; every plugin that reports a fraction of peak resolves it here.
#pragma once

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/expected.hpp"

#include <string>
#include <string_view>

namespace dgx::llm {

struct DevicePeak {
  double tflops = 0;  ///< dense (no sparsity), per GPU; 0 when the system lacks the format
  Precision precision = Precision::bf16;
  std::string system;  ///< the profile it comes from; empty when the configuration gave it

  /// "<N> TFLOP/s dense bf16 (h100-sxm)" (N rounded to an integer), or "... (configured)" for a peak the configuration
  /// gave.
  [[nodiscard]] std::string label() const;
};

/// `system`'s dense peak of `precision`; an error when the system lacks that format (no FP8 tensor cores, ...).
[[nodiscard]] Expected<DevicePeak> system_peak(const SystemProfile& system, Precision precision);

/// The peak a measurement in `precision` on the CUDA device `device_name` is compared with: `configured_tflops` when
/// positive, else the dense peak of the device's system profile (find_system_for_device). An error says why there is
/// none: no profile matches the device, or its profile has no peak for the precision.
[[nodiscard]] Expected<DevicePeak> resolve_peak(double configured_tflops, std::string_view device_name,
                                                Precision precision);

}  // namespace dgx::llm
