// The time of one serving iteration (one forward pass of the replica over a mixed prefill/decode batch), composed
// from per-op times at the exact per-rank shapes (serve_ops.hpp):
//   one stage   = stage layers × Σ layer ops + the stage's extras (embedding first, LM head and sampling last)
//   iteration   = stage (pp = 1), or pp × the slowest stage at a micro-batch of 1/pp of the load + (pp − 1)
//                 hand-offs (pp > 1: TensorRT-LLM keeps pp micro-batches in flight, so every GPU reads its weights
//                 once per micro-batch and a token traverses every stage once per iteration)
//               + the engine's iteration overhead (serve_constants::kStepOverheadS) per micro-batch.
// Communication is exposed: the TP all-reduces sit between the GEMMs they join (fused with the norms, not overlapped).
#pragma once

#include "dgx/llm/model_config.hpp"
#include "dgx/llm/op_time.hpp"
#include "dgx/llm/serve_ops.hpp"
#include "dgx/llm/system_profile.hpp"

#include <memory>

namespace dgx::llm {

/// Where an iteration's time goes; compute + tp_comm + pp_comm + overhead = seconds.
struct StepCost {
  double seconds = 0;
  double compute = 0;       ///< GEMMs, attention, memory-bound ops on the critical path
  double tp_comm = 0;       ///< TP all-reduces and gathers
  double pp_comm = 0;       ///< pipeline hand-offs
  double overhead = 0;      ///< the engine's per-iteration time beyond the kernels
  double weight_bytes = 0;  ///< weight bytes one GPU of the fullest stage reads (every micro-batch re-reads them)
  double kv_bytes = 0;      ///< KV cache bytes one GPU reads in decode attention
  double flops = 0;         ///< model FLOPs of the replica: 2 per active parameter per token, attention, LM head
  int ops = 0;              ///< ops timed for one micro-batch of one stage
  int measured_ops = 0;     ///< of those, timed by a measurement
};

/// Times iterations of one model on one system.
class ServeStepModel {
public:
  /// `provider` (optional) must outlive the model; by default the roofline of `system` with split-K GEMMs
  /// (RooflineProvider::GemmFill::split_k: small decode GEMMs stream their weights at the memory roofline).
  ServeStepModel(ModelConfig model, SystemProfile system, const OpTimeProvider* provider = nullptr);

  [[nodiscard]] StepCost step(const ServeShape& shape, const StepLoad& load) const;

  [[nodiscard]] const ModelConfig& model() const { return model_; }
  [[nodiscard]] const SystemProfile& system() const { return system_; }
  [[nodiscard]] const OpTimeProvider& provider() const { return *provider_; }

private:
  ModelConfig model_;
  SystemProfile system_;
  std::unique_ptr<RooflineProvider> own_provider_;
  const OpTimeProvider* provider_;
};

}  // namespace dgx::llm
