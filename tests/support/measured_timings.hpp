// Test helper: a "measurement" of a model layer built from the model's own op list, each op at `scale` times
// its roofline estimate, with the kernels library's names, passes and shapes.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/kernels/layer_spec.hpp"
#include "dgx/llm/kernels/op_timing.hpp"
#include "dgx/llm/layer_ops.hpp"
#include "dgx/llm/op_time.hpp"
#include "fake_layer_probe.hpp"

namespace dgx::llm::kernels::testing {

/// The model's shape of the layer the probe was asked to build: its layout, micro-batch, sequence and precision,
/// without recompute (the probe times one step of the layer as specified).
inline llm::ShapeKey model_shape(const llm::kernels::LayerSpec& spec) {
  return {spec.layout.tp,
          spec.layout.cp,
          spec.layout.ep,
          static_cast<int>(spec.micro_batch),
          static_cast<int>(spec.seq_len),
          spec.precision == llm::kernels::Precision::fp8 ? llm::Precision::fp8 : llm::Precision::bf16,
          llm::Recompute::none};
}

/// GEMM dims are given transposed (n, m, k) to check that matching does not depend on the order.
inline std::vector<llm::kernels::OpTiming> timings_of(const llm::OpList& ops, const llm::OpTimeProvider& roofline,
                                                      double scale) {
  std::vector<llm::kernels::OpTiming> out;
  for (const std::vector<llm::Op>* list : {&ops.forward, &ops.backward}) {
    for (const llm::Op& op : *list) {
      if (op.is_communication()) {
        continue;
      }
      llm::kernels::OpTiming t;
      t.name = std::string(op.name);
      t.pass = op.pass;
      t.recompute = op.recompute;
      t.seconds = roofline.seconds(op) * scale;
      if (const auto* g = std::get_if<llm::GemmShape>(&op.shape)) {
        t.kind = llm::kernels::OpKind::gemm;
        t.gemm = {g->n, g->m, g->k, g->groups};
      } else if (std::holds_alternative<llm::AttentionShape>(op.shape)) {
        t.kind = llm::kernels::OpKind::attention;
      }
      out.push_back(t);
    }
  }
  return out;
}

/// The timing of a layer whose ops are `ops`, each at `scale` times its roofline on `system`: the step is their sum.
/// Model FLOPs and peak memory are left for the test to choose.
inline llm::kernels::LayerTiming layer_timing_of(const llm::OpList& ops, const llm::SystemProfile& system,
                                                 double scale) {
  llm::kernels::LayerTiming timing;
  timing.ops = timings_of(ops, llm::RooflineProvider(system), scale);
  for (const auto& op : timing.ops) {
    timing.step_seconds += op.seconds;
  }
  return timing;
}

/// What the fake layer probe "measures" in a training plugin's test: the layer it was asked for, of llama3.1-8b on
/// h200-sxm. `ops` lists that layer's ops at its shape (model_shape) as the job does, each runs `scale` times its
/// roofline; model FLOPs and peak memory as given.
struct FakeLayerMeasurement {
  std::function<llm::OpList(const llm::ModelConfig&, const llm::SystemProfile&, const llm::kernels::LayerSpec&)> ops;
  std::function<double(const llm::kernels::LayerSpec&)> scale;
  double model_flops = 0;
  std::uint64_t peak_bytes = 0;
};

/// Sets the fake's timing (fake_layer_timing) to `measurement`, and forgets the specs it was asked for so far.
inline void fake_measurement(FakeLayerMeasurement measurement) {
  fake_layer_specs().clear();
  fake_layer_timing() = [m = std::move(measurement)](const llm::kernels::LayerSpec& spec) {
    const llm::ModelConfig model = llm::find_model("llama3.1-8b").value();
    const llm::SystemProfile system = llm::find_system("h200-sxm").value();
    llm::kernels::LayerTiming timing = layer_timing_of(m.ops(model, system, spec), system, m.scale(spec));
    timing.model_flops = m.model_flops;
    timing.peak_bytes = m.peak_bytes;
    return timing;
  };
}

}  // namespace dgx::llm::kernels::testing
