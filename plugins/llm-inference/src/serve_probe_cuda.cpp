// The measured serving path on libs/llm-kernels: ServeLayer (one layer's decode and chunk iterations) and DecodeModel
// (a whole model's decode loop in CUDA graphs).
#include "dgx/llm/cuda/decode_model.hpp"
#include "dgx/llm/cuda/device.hpp"
#include "dgx/llm/cuda/sdk_bridge.hpp"
#include "dgx/llm/cuda/serve_layer.hpp"
#include "serve_probe.hpp"

namespace dgx::plugins::llm_inference {

namespace {

namespace cuda = llm::cuda;
namespace kernels = llm::kernels;

class CudaServeProbe final : public ServeProbe {
public:
  explicit CudaServeProbe(const kernels::ServeLayerSpec& spec)
      : layer_(cuda::with_sdk_errors([&] { return std::make_unique<cuda::ServeLayer>(spec); })) {}

  [[nodiscard]] std::string device() const override { return layer_->device_name(); }
  [[nodiscard]] double time_decode(int iterations, bool flush_l2) override {
    return cuda::with_sdk_errors([&] { return layer_->time_decode(iterations, flush_l2); });
  }
  [[nodiscard]] kernels::ServeLayerTiming profile(int repeats) override {
    return cuda::with_sdk_errors([&] { return layer_->profile(repeats); });
  }

private:
  std::unique_ptr<cuda::ServeLayer> layer_;
};

class CudaDecodeRunner final : public DecodeRunner {
public:
  explicit CudaDecodeRunner(const kernels::DecodeModelSpec& spec)
      : model_(cuda::with_sdk_errors([&] { return std::make_unique<cuda::DecodeModel>(spec); })) {}

  [[nodiscard]] std::string device() const override { return model_->device_name(); }
  void prepare(std::int64_t batch) override {
    cuda::with_sdk_errors([&] { model_->prepare(batch); });
  }
  [[nodiscard]] double time_iterations(int iterations) override {
    return cuda::with_sdk_errors([&] { return model_->time_iterations(iterations); });
  }
  [[nodiscard]] double bytes_per_iteration() const override { return model_->bytes_per_iteration(); }

private:
  std::unique_ptr<cuda::DecodeModel> model_;
};

}  // namespace

std::string serve_probe_unavailable() {
  const auto reason = cuda::no_device_reason();
  return reason ? "no CUDA device found: " + *reason : std::string();
}

std::unique_ptr<ServeProbe> make_serve_probe(const kernels::ServeLayerSpec& spec) {
  return std::make_unique<CudaServeProbe>(spec);
}

std::unique_ptr<DecodeRunner> make_decode_runner(const kernels::DecodeModelSpec& spec) {
  return std::make_unique<CudaDecodeRunner>(spec);
}

}  // namespace dgx::plugins::llm_inference
