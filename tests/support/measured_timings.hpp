// Test helper: a "measurement" of a model layer built from the model's own op list, each op at `scale` times
// its roofline estimate, with the kernels library's names, passes and shapes.
#pragma once

#include <vector>

#include "dgx/llm/kernels/layer_spec.hpp"
#include "dgx/llm/kernels/op_timing.hpp"
#include "dgx/llm/layer_ops.hpp"
#include "dgx/llm/op_time.hpp"

namespace dgx::llm::kernels::testing {

/// The model's shape of the layer the probe was asked to build: its layout, micro-batch, sequence and precision,
/// without recompute (the probe times one step of the layer as specified).
inline llm::ShapeKey shape_of(const llm::kernels::LayerSpec& spec) {
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
  for (const std::vector<llm::Op>* list : {&ops.forward, &ops.backward})
    for (const llm::Op& op : *list) {
      if (op.is_communication()) continue;
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
  return out;
}

/// The timing of a layer whose ops are `ops`, each at `scale` times its roofline on `system`: the step is their sum.
/// Model FLOPs and peak memory are left for the test to choose.
inline llm::kernels::LayerTiming layer_timing_of(const llm::OpList& ops, const llm::SystemProfile& system,
                                                 double scale) {
  llm::kernels::LayerTiming timing;
  timing.ops = timings_of(ops, llm::RooflineProvider(system), scale);
  for (const auto& op : timing.ops) timing.step_seconds += op.seconds;
  return timing;
}

}  // namespace dgx::llm::kernels::testing
