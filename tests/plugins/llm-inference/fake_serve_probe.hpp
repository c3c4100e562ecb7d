// Test double of the serve probe (the plugin's CUDA dependency): measure mode and the decode workload run on any
// machine, with timings the test chooses.
#pragma once

#include <functional>
#include <vector>

#include "serve_probe.hpp"

namespace dgx::plugins::llm_inference::testing {

/// What the fake "measures" for a layer; set by a test. Unset: serve_probe_unavailable() reports no device.
inline std::function<llm::kernels::ServeLayerTiming(const llm::kernels::ServeLayerSpec&)>& fake_serve_timing() {
  static std::function<llm::kernels::ServeLayerTiming(const llm::kernels::ServeLayerSpec&)> timing;
  return timing;
}

/// The layer specs the fake was asked to build, in order.
inline std::vector<llm::kernels::ServeLayerSpec>& fake_serve_specs() {
  static std::vector<llm::kernels::ServeLayerSpec> specs;
  return specs;
}

/// Seconds per decode iteration of the fake whole-model decode loop, by batch size.
inline std::function<double(std::int64_t)>& fake_decode_tpot() {
  static std::function<double(std::int64_t)> tpot;
  return tpot;
}

}  // namespace dgx::plugins::llm_inference::testing
