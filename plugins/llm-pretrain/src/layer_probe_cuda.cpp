// The layer probe on plugins/llm-kernels: the same TransformerLayer the llm-layer workload measures.
#include "dgx/llm/cuda/device.hpp"
#include "dgx/llm/cuda/layer.hpp"
#include "dgx/llm/cuda/sdk_bridge.hpp"
#include "layer_probe.hpp"

namespace dgx::pretrain {

namespace {

namespace kernels = llm::cuda;

class CudaLayerProbe final : public LayerProbe {
public:
  explicit CudaLayerProbe(const kernels::LayerSpec& spec)
      : layer_(kernels::with_sdk_errors([&] { return std::make_unique<kernels::TransformerLayer>(spec); })) {}

  [[nodiscard]] std::string device() const override { return layer_->device_name(); }
  [[nodiscard]] double time_steps(int steps, bool flush_l2) override {
    return kernels::with_sdk_errors([&] { return layer_->time_steps(steps, flush_l2); });
  }
  [[nodiscard]] kernels::LayerTiming profile(int repeats) override {
    return kernels::with_sdk_errors([&] { return layer_->profile(repeats); });
  }

private:
  std::unique_ptr<kernels::TransformerLayer> layer_;
};

}  // namespace

std::string layer_probe_unavailable() {
  const auto reason = kernels::no_device_reason();
  return reason ? "no CUDA device found: " + *reason : std::string();
}

std::unique_ptr<LayerProbe> make_layer_probe(const kernels::LayerSpec& spec) {
  return std::make_unique<CudaLayerProbe>(spec);
}

}  // namespace dgx::pretrain
