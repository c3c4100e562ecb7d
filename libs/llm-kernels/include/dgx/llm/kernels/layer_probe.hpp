// The one CUDA dependency of llm-pretrain's measure mode, behind a CUDA-free interface: run one transformer layer
// on this machine's GPU and time it. Built against libs/llm-kernels when there is a CUDA toolkit; otherwise
// every machine reports that it cannot measure.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "dgx/llm/kernels/layer_spec.hpp"
#include "dgx/llm/kernels/op_timing.hpp"

namespace dgx::llm::kernels {

class LayerProbe {
public:
  LayerProbe() = default;
  LayerProbe(const LayerProbe&) = delete;
  LayerProbe& operator=(const LayerProbe&) = delete;
  virtual ~LayerProbe() = default;

  [[nodiscard]] virtual std::string device() const = 0;
  /// Seconds of `steps` forward+backward steps back to back, between device events.
  [[nodiscard]] virtual double time_steps(int steps, bool flush_l2) = 0;
  /// Every op timed over `repeats` steps (medians), and the layer's memory.
  [[nodiscard]] virtual LayerTiming profile(int repeats) = 0;
};

/// Empty when a layer can be measured here; else why not ("no CUDA device: ...", "built without CUDA").
[[nodiscard]] std::string layer_probe_unavailable();
/// Builds the layer on the current device (untimed: allocation, cuDNN plans, GEMM tuning). Throws dgx::sdk errors.
[[nodiscard]] std::unique_ptr<LayerProbe> make_layer_probe(const LayerSpec& spec);

}  // namespace dgx::llm::kernels
