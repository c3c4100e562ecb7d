// Test double of the layer probe (the plugin's CUDA dependency): measure mode runs on any machine, with op
// timings the test chooses.
#pragma once

#include <functional>
#include <string>

#include "dgx/llm/kernels/layer_probe.hpp"

namespace dgx::llm::kernels::testing {

/// What the fake "measures" for a layer; set by a test. Unset: layer_probe_unavailable() reports no device.
inline std::function<llm::kernels::LayerTiming(const llm::kernels::LayerSpec&)>& fake_layer_timing() {
  static std::function<llm::kernels::LayerTiming(const llm::kernels::LayerSpec&)> timing;
  return timing;
}

/// The layer specs the fake was asked to build, in order.
inline std::vector<llm::kernels::LayerSpec>& fake_layer_specs() {
  static std::vector<llm::kernels::LayerSpec> specs;
  return specs;
}

}  // namespace dgx::llm::kernels::testing
