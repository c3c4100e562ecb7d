#include "dgx/llm/device_peak.hpp"

#include "dgx/llm/catalog.hpp"

#include <cstdio>

namespace dgx::llm {

std::string DevicePeak::label() const {
  char tflops_text[32];
  std::snprintf(tflops_text, sizeof tflops_text, "%.0f", tflops);
  return std::string(tflops_text) + " TFLOP/s dense " + std::string(to_string(precision)) + " (" +
         (system.empty() ? std::string("configured") : system) + ")";
}

Expected<DevicePeak> system_peak(const SystemProfile& system, Precision precision) {
  const double tflops = system.dense_peak_flops(precision) / 1e12;
  if (tflops <= 0) {
    return Error{system.name + " (configs/systems/" + system.name + ".toml) has no dense " +
                 std::string(to_string(precision)) + " peak"};
  }
  return DevicePeak{.tflops = tflops, .precision = precision, .system = system.name};
}

Expected<DevicePeak> resolve_peak(double configured_tflops, std::string_view device_name, Precision precision) {
  if (configured_tflops > 0) {
    return DevicePeak{.tflops = configured_tflops, .precision = precision, .system = {}};
  }
  const auto system = find_system_for_device(device_name);
  if (!system) {
    return system.error();
  }
  return system_peak(*system, precision);
}

}  // namespace dgx::llm
