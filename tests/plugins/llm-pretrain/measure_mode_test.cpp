// Measure mode on the test double of the layer probe: the measured op times replace the model's estimates, and
// the cluster projection built on them is labelled measured-calibrated, for the measured GPU's system.
#include "plugin.hpp"

#include <doctest/doctest.h>

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/step_model.hpp"
#include "fake_layer_probe.hpp"
#include "llm_host.hpp"
#include "measure_cases.hpp"
#include "measured_timings.hpp"
#include "params.hpp"

using namespace dgx;
using namespace dgx::plugins::llm_pretrain;
using PretrainHost = dgx::testing::LlmHost<PretrainWorkload, pretrain_params>;
namespace fakes = dgx::llm::kernels::testing;

namespace {

// The "measurement": every op of the model's layer at `scale` times its roofline on the H200 profile.
void fake_measurement(double scale) {
  fakes::fake_measurement(
      {.ops =
           [](const llm::ModelConfig& model, const llm::SystemProfile& system, const llm::kernels::LayerSpec& spec) {
             return llm::transformer_layer_ops(model, system, fakes::model_shape(spec));
           },
       .scale = [scale](const llm::kernels::LayerSpec&) { return scale; },
       .model_flops = 1e15,
       .peak_bytes = 40ull << 30});
}

struct Run {
  PretrainHost h;
  std::vector<double> step_times;

  explicit Run(double scale) {
    fake_measurement(scale);
    h.use_preset("llama8b");
    h.set(key::gpus, std::int64_t{64});
    dgx::sdk::Host host(h.api());
    PretrainWorkload w(host);
    step_times = dgx::testing::measure_every_case(w);
    fakes::fake_layer_timing() = nullptr;
  }
};

}  // namespace

TEST_CASE("measure mode measures the preset's layer per precision and projects the cluster from it") {
  const Run run(1.0);
  REQUIRE(run.h.rows.size() == 2);  // bf16 and fp8
  const auto& specs = fakes::fake_layer_specs();
  REQUIRE(specs.size() == 2);
  CHECK(specs[0].layout.cp == 2);  // the llama8b preset's layout: TP1 CP2
  CHECK(specs[0].seq_len == 8192);
  CHECK(specs[1].precision == llm::kernels::Precision::fp8);
  for (std::size_t i = 0; i < run.h.rows.size(); ++i) {
    const auto& row = run.h.rows[i];
    CHECK(row.mode == DGX_RESULT_PROJECTED);
    CHECK(run.h.visibility[i].table == "measured-calibrated projection");
    CHECK(row.fields.at("system") == "h200-sxm");  // the measured GPU's system, not the preset's h100-sxm
    CHECK(row.fields.at("source").find("measured-calibrated projection: ") == 0);
    CHECK(row.fields.at("source").find("layer ops measured on NVIDIA H200") != std::string::npos);
    CHECK(row.metrics.count("step_time") == 1);
  }
  CHECK(run.h.added_metrics.count("layer.model_tflops") == 1);
  CHECK(run.h.added_metrics.count("layer.mfu") == 1);
  CHECK(run.h.added_metrics.at("layer.peak_memory").first == static_cast<double>(40ull << 30));
  CHECK(run.h.added_fields.at("system") == "h200-sxm");  // the profile the layer's MFU divides by
  CHECK(run.h.added_fields.at("peak").find("dense fp8 (h200-sxm)") != std::string::npos);
  CHECK(run.h.note("Measured").find("measured on NVIDIA H200") != std::string::npos);
}

TEST_CASE("slower measured ops give a slower projected step: the measurement really feeds the model") {
  const Run as_modelled(1.0), twice_as_slow(2.0);
  const double a = as_modelled.h.rows[0].metrics.at("step_time").first;
  const double b = twice_as_slow.h.rows[0].metrics.at("step_time").first;
  CHECK(b > 1.5 * a);
  CHECK(twice_as_slow.step_times[0] == doctest::Approx(2 * as_modelled.step_times[0]));
}
