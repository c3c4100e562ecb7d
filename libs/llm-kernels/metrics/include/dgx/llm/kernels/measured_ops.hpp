// Measured op times into the performance model: which measured op of a layer (libs/llm-kernels) is which op of
// the model's layer (dgx::llm::transformer_layer_ops), so that a measurement on this device replaces the
// model's estimate op by op, at the same per-rank shapes. CUDA-free: the matching is tested on any machine.
#pragma once

#include <string>
#include <vector>

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/finetune.hpp"
#include "dgx/llm/kernels/layer_spec.hpp"
#include "dgx/llm/kernels/op_timing.hpp"
#include "dgx/llm/layer_ops.hpp"
#include "dgx/llm/op_time.hpp"
#include "dgx/llm/step_model.hpp"

namespace dgx::llm::kernels {

/// The layer the kernels library runs for `model` at the per-rank shapes of `train` (TP, CP, EP, MBS,
/// sequence length, precision, recompute). Throws dgx::sdk::InvalidArgument for what it cannot run.
[[nodiscard]] LayerSpec layer_spec_for(const llm::ModelConfig& model, const llm::TrainConfig& train);
/// The same layer fine-tuned: LoRA's frozen base and adapters, and packed samples run per sample (of the divisor
/// of the sequence nearest to the average sample, with cp = 1).
[[nodiscard]] LayerSpec layer_spec_for(const llm::ModelConfig& model, const llm::TrainConfig& train,
                                       const llm::FineTune& finetune);

/// How a measurement met the model's op list.
struct MatchReport {
  int model_ops = 0;          ///< compute ops of the model's layer (communication is never measured here)
  int matched = 0;            ///< of which a measurement now gives the time
  double folded_seconds = 0;  ///< measured time of ops the model does not list separately (see apply_measurements)
  std::vector<std::string> unmatched_model_ops;  ///< keys left to the roofline
  std::vector<std::string> extra_measured_ops;   ///< measured names with no model counterpart
};

/// Sets `overrides` for every compute op of `ops` that the measurement timed: GEMMs matched by name, pass and
/// m/n/k (in any order: the two libraries may transpose), attention and memory-bound ops by name and pass
/// (their calls summed: ring steps, repeated kernels). Measured ops the model does not list separately — FP8
/// casts the model assumes fused into the norms, the FP8 scale update — are folded into the model's matched
/// memory-bound ops of the same pass in proportion to their time, so that each pass keeps its measured total.
MatchReport apply_measurements(const std::vector<OpTiming>& measured, const llm::OpList& ops,
                               llm::MeasuredOverrides& overrides);

}  // namespace dgx::llm::kernels
