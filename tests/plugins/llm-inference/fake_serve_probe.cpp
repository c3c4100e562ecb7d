// The fake serve probe and decode runner: an "NVIDIA H200" whose timings come from fake_serve_probe.hpp.
#include "fake_serve_probe.hpp"

#include <dgx/sdk/error.hpp>

namespace dgx::plugins::llm_inference {

namespace {

namespace kernels = llm::kernels;
using testing::fake_decode_tpot;
using testing::fake_serve_specs;
using testing::fake_serve_timing;

class FakeServeProbe final : public ServeProbe {
public:
  explicit FakeServeProbe(const kernels::ServeLayerSpec& spec) : timing_(fake_serve_timing()(spec)) {}
  [[nodiscard]] std::string device() const override { return "NVIDIA H200"; }
  [[nodiscard]] double time_decode(int iterations, bool) override { return iterations * timing_.decode_seconds; }
  [[nodiscard]] kernels::ServeLayerTiming profile(int) override { return timing_; }

private:
  kernels::ServeLayerTiming timing_;
};

class FakeDecodeRunner final : public DecodeRunner {
public:
  explicit FakeDecodeRunner(const kernels::DecodeModelSpec& spec) : spec_(spec) {}
  [[nodiscard]] std::string device() const override { return "NVIDIA H200"; }
  void prepare(std::int64_t batch) override { batch_ = batch; }
  [[nodiscard]] double time_iterations(int iterations) override { return iterations * fake_decode_tpot()(batch_); }
  [[nodiscard]] double bytes_per_iteration() const override {
    return kernels::model_weight_bytes(spec_) +
           double(batch_) * double(spec_.context) * kernels::model_kv_bytes_per_token(spec_);
  }

private:
  kernels::DecodeModelSpec spec_;
  std::int64_t batch_ = 0;
};

}  // namespace

std::string serve_probe_unavailable() {
  return fake_serve_timing() ? std::string() : std::string("no CUDA device found: the test's fake has no timings");
}

std::unique_ptr<ServeProbe> make_serve_probe(const kernels::ServeLayerSpec& spec) {
  if (!fake_serve_timing()) {
    throw dgx::sdk::NoDevice(serve_probe_unavailable());
  }
  fake_serve_specs().push_back(spec);
  return std::make_unique<FakeServeProbe>(spec);
}

std::unique_ptr<DecodeRunner> make_decode_runner(const kernels::DecodeModelSpec& spec) {
  if (!fake_decode_tpot()) {
    throw dgx::sdk::NoDevice("no CUDA device found: the test's fake has no timings");
  }
  return std::make_unique<FakeDecodeRunner>(spec);
}

}  // namespace dgx::plugins::llm_inference
