// The layer probe on libs/llm-kernels: the same TransformerLayer the llm-layer workload measures.
#include "dgx/llm/cuda/device.hpp"
#include "dgx/llm/cuda/layer.hpp"
#include "dgx/llm/cuda/sdk_bridge.hpp"
#include "dgx/llm/kernels/layer_probe.hpp"

namespace dgx::llm::kernels {

namespace {

namespace cuda = llm::cuda;

class CudaLayerProbe final : public LayerProbe {
public:
  explicit CudaLayerProbe(const LayerSpec& spec)
      : layer_(cuda::with_sdk_errors([&] { return std::make_unique<cuda::TransformerLayer>(spec); })) {}

  [[nodiscard]] std::string device() const override { return layer_->device_name(); }
  [[nodiscard]] double time_steps(int steps, bool flush_l2) override {
    return cuda::with_sdk_errors([&] { return layer_->time_steps(steps, flush_l2); });
  }
  [[nodiscard]] LayerTiming profile(int repeats) override {
    return cuda::with_sdk_errors([&] { return layer_->profile(repeats); });
  }

private:
  std::unique_ptr<cuda::TransformerLayer> layer_;
};

}  // namespace

std::string layer_probe_unavailable() {
  const auto reason = cuda::no_device_reason();
  return reason ? "no CUDA device found: " + *reason : std::string();
}

std::unique_ptr<LayerProbe> make_layer_probe(const LayerSpec& spec) { return std::make_unique<CudaLayerProbe>(spec); }

}  // namespace dgx::llm::kernels
