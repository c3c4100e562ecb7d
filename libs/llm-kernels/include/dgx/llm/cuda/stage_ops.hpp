// The ops of the first and last pipeline stages that a decoder layer does not have: the vocabulary-parallel
// embedding lookup (and its gradient), the final norm, the LM head GEMMs (BF16 in every recipe) and the
// cross-entropy loss, forward and backward, measured op by op at the rank's shapes. CUDA-free header.
#pragma once

#include "dgx/llm/cuda/layer.hpp"
#include "dgx/llm/kernels/layer_spec.hpp"
#include "dgx/llm/kernels/op_timing.hpp"

#include <memory>
#include <vector>

namespace dgx::llm::cuda {

class StageOps {
public:
  /// Needs spec.arch.vocab > 0 (the vocabulary is split over tp). Throws like TransformerLayer.
  StageOps(const kernels::LayerSpec& spec, const LayerOptions& options = {});
  ~StageOps();
  StageOps(const StageOps&) = delete;
  StageOps& operator=(const StageOps&) = delete;

  /// embedding, final_norm, lm_head, cross_entropy forward and backward, timed by events (medians of `repeats`).
  [[nodiscard]] std::vector<kernels::OpTiming> profile(int repeats);
  /// The mean loss of the last step (a sanity value: about ln(vocab) for random logits).
  [[nodiscard]] float last_loss();

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dgx::llm::cuda
