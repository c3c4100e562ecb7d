// The time of one serving iteration (one forward pass of the replica over a mixed prefill/decode batch), composed
// from per-op times at the exact per-rank shapes (serve_ops.hpp):
//   one stage   = its dense layers × Σ dense-layer ops + its MoE layers × Σ MoE-layer ops + the stage's extras
//                 (embedding first, LM head and sampling last)
//   iteration   = stage (pp = 1), or pp × the slowest stage at a micro-batch of 1/pp of the load + (pp − 1)
//                 hand-offs (pp > 1: TensorRT-LLM keeps pp micro-batches in flight, so every GPU reads its weights
//                 once per micro-batch and a token traverses every stage once per iteration)
//               + the drafter's passes (speculative decoding: draft_tokens passes of the MTP module, the EAGLE head or
//                 the draft model over the decoding requests; the model's pass verifies 1 + draft_tokens positions)
//               + the engine's iteration overhead per micro-batch, derived, not fitted: the host's executor loop
//                 (serve_constants::kHostIterationS + kHostPerRequestS per request) overlapped with the GPU's
//                 iteration (only what exceeds it is exposed) plus the boundary between iterations (kIterationGapS).
// Decode-only iterations of at most kCudaGraphMaxBatch requests run as CUDA graphs (kernel overhead
// kGraphKernelOverheadUs); the others launch eagerly (the system profile's kernel_overhead_us).
// Communication is exposed: the TP all-reduces sit between the GEMMs they join (fused with the norms, not overlapped).
#pragma once

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/op_time.hpp"
#include "dgx/llm/serve_ops.hpp"

#include <memory>

namespace dgx::llm {

/// Where an iteration's time goes; compute + tp_comm + ep_comm + pp_comm + draft + overhead = seconds.
struct StepCost {
  double seconds = 0;
  double compute = 0;       ///< GEMMs, attention, memory-bound ops on the critical path
  double tp_comm = 0;       ///< TP all-reduces and gathers
  double ep_comm = 0;       ///< attention DP's MoE dispatch and combine (all-to-all)
  double pp_comm = 0;       ///< pipeline hand-offs
  double draft = 0;         ///< the drafter's passes (speculative decoding)
  double overhead = 0;      ///< the engine's per-iteration time beyond the kernels (exposed host work + gap)
  double weight_bytes = 0;  ///< weight bytes one GPU of the fullest stage reads (every micro-batch re-reads them)
  double kv_bytes = 0;      ///< KV cache bytes one GPU reads in decode attention
  double flops = 0;         ///< model FLOPs of the replica: 2 per active parameter per token, attention, LM head
  double kernels = 0;       ///< kernels the slowest stage's GPU launches in the iteration (layers counted)
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
  /// The host's share of an iteration that the GPU's `gpu_seconds` do not hide, for `requests` scheduled requests.
  [[nodiscard]] static double exposed_host_seconds(double gpu_seconds, double requests);

  [[nodiscard]] const ModelConfig& model() const { return model_; }
  [[nodiscard]] const SystemProfile& system() const { return system_; }
  [[nodiscard]] const OpTimeProvider& provider() const { return *provider_; }

private:
  [[nodiscard]] const OpTimeProvider& provider_for(const ServeShape& shape, const StepLoad& load) const;
  /// The ops of one micro-batch on the slowest stage and the drafter's passes, timed by `provider`.
  [[nodiscard]] StepCost kernels(const ServeShape& shape, const StepLoad& load, const OpTimeProvider& provider) const;
  [[nodiscard]] double draft_seconds(const ServeShape& shape, const StepLoad& load,
                                     const OpTimeProvider& provider) const;

  ModelConfig model_;
  SystemProfile system_;
  std::unique_ptr<RooflineProvider> own_provider_;
  std::unique_ptr<RooflineProvider> graph_provider_;  ///< the roofline inside CUDA graphs (own provider only)
  const OpTimeProvider* provider_;
};

}  // namespace dgx::llm
