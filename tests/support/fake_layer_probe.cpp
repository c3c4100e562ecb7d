#include "fake_layer_probe.hpp"

#include <dgx/sdk/error.hpp>

namespace dgx::llm::kernels {

namespace {

class FakeLayerProbe final : public LayerProbe {
public:
  explicit FakeLayerProbe(const llm::kernels::LayerSpec& spec) : timing_(testing::fake_layer_timing()(spec)) {}
  [[nodiscard]] std::string device() const override { return "NVIDIA H200"; }
  [[nodiscard]] double time_steps(int steps, bool) override { return timing_.step_seconds * steps; }
  [[nodiscard]] llm::kernels::LayerTiming profile(int) override { return timing_; }

private:
  llm::kernels::LayerTiming timing_;
};

}  // namespace

std::string layer_probe_unavailable() {
  return testing::fake_layer_timing() ? std::string() : "no CUDA device found: test double";
}

std::unique_ptr<LayerProbe> make_layer_probe(const llm::kernels::LayerSpec& spec) {
  if (!testing::fake_layer_timing()) {
    throw dgx::sdk::NoDevice(layer_probe_unavailable());
  }
  testing::fake_layer_specs().push_back(spec);
  return std::make_unique<FakeLayerProbe>(spec);
}

}  // namespace dgx::llm::kernels
