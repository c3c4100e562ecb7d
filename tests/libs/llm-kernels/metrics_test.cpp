// What a measured GEMM or layer reports (metrics.cpp), on a fake host: the peak of the device's system profile,
// MFU from it, and fields that name the profile.
#include "dgx/llm/kernels/metrics.hpp"

#include <doctest/doctest.h>

#include "dgx/llm/catalog.hpp"
#include "fake_host.hpp"

using namespace dgx::llm::kernels;

namespace {

LayerTiming measured_layer() {
  LayerTiming timing;
  timing.model_flops = 2e15;
  timing.forward_seconds = 0.5;
  timing.backward_seconds = 1.5;
  timing.peak_bytes = 40ull << 30;
  timing.activation_bytes = 20ull << 30;
  timing.weight_bytes = 1ull << 30;
  timing.gradient_bytes = 2ull << 30;
  return timing;
}

}  // namespace

TEST_CASE("a device's peak comes from its system profile in configs/systems, per kernels precision") {
  const auto h100 = dgx::llm::find_system("h100-pcie");
  REQUIRE(h100.has_value());
  const auto bf16 = device_peak(0, "NVIDIA H100 PCIe", Precision::bf16);
  REQUIRE(bf16.has_value());
  CHECK(bf16->tflops == h100->peak_bf16_tflops);
  CHECK(bf16->system == "h100-pcie");
  CHECK(device_peak(0, "NVIDIA H100 PCIe", Precision::fp8)->tflops == h100->peak_fp8_tflops);
  CHECK(device_peak(321, "NVIDIA H100 PCIe", Precision::fp8)->tflops == 321);  // the configured peak wins
  CHECK(model_precision(Precision::fp8) == dgx::llm::Precision::fp8);
}

TEST_CASE("a measured layer reports model TFLOP/s, MFU against the profile's peak, times, memory and the profile") {
  dgx::testing::FakeHost fake;
  const dgx::sdk::Host host(fake.api());
  const auto peak = device_peak(0, "NVIDIA H200", Precision::bf16);
  REQUIRE(peak.has_value());
  add_layer_metrics(host, "layer.", measured_layer(), 2.0, peak, "");
  const double tflops = 2e15 / 2.0 / 1e12;
  CHECK(fake.added_metrics.at("layer.model_tflops").first == doctest::Approx(tflops));
  CHECK(fake.added_metrics.at("layer.mfu").first == doctest::Approx(100 * tflops / peak->tflops));
  CHECK(fake.added_metrics.at("layer.mfu").second == "%");
  CHECK(fake.added_metrics.at("layer.forward_time").first == 0.5);
  CHECK(fake.added_metrics.at("layer.backward_time").first == 1.5);
  CHECK(fake.added_metrics.at("layer.peak_memory").first == static_cast<double>(40ull << 30));
  CHECK(fake.added_metrics.count("layer.gradient_memory") == 1);
  CHECK(fake.added_fields.at("system") == "h200-sxm");
  CHECK(fake.added_fields.at("peak") == peak->label());
}

TEST_CASE("without a peak there is no MFU, and the peak field says why and which key would give one") {
  dgx::testing::FakeHost fake;
  const dgx::sdk::Host host(fake.api());
  add_layer_metrics(host, "", measured_layer(), 2.0, device_peak(0, "Some Future GPU", Precision::bf16), "peak.bf16");
  CHECK(fake.added_metrics.count("model_tflops") == 1);
  CHECK(fake.added_metrics.count("mfu") == 0);
  CHECK(fake.added_fields.count("system") == 0);
  const std::string why = fake.added_fields.at("peak");
  CHECK(why.find("none: no system profile in configs/systems lists a device name matching 'Some Future GPU'") == 0);
  CHECK(why.find("set peak.bf16 (TFLOP/s)") != std::string::npos);
}

TEST_CASE("a configured peak is reported as configured, with no system profile") {
  dgx::testing::FakeHost fake;
  const dgx::sdk::Host host(fake.api());
  add_peak_fields(host, device_peak(500, "NVIDIA H200", Precision::fp8), "gemm.peak_fp8");
  CHECK(fake.added_fields.count("system") == 0);
  CHECK(fake.added_fields.at("peak") == "500 TFLOP/s dense fp8 (configured)");
}

TEST_CASE("a peak key's help names where the peak comes from and the system profiles") {
  const dgx::sdk::Param param = peak_param("peak.fp8", Precision::fp8);
  CHECK(param.key == "peak.fp8");
  CHECK(param.help.find("dense FP8 peak") == 0);
  CHECK(param.help.find("configs/systems: ") != std::string::npos);
  for (const std::string& system : dgx::llm::system_names()) {
    CHECK(param.help.find(system) != std::string::npos);
  }
}
