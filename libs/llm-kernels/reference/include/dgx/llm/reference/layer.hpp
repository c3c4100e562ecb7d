// The CPU reference of one transformer layer, forward and backward, at tiny shapes: pre-norm decoder layer
// (norm, QKV, rotary, causal grouped-query attention, output projection, residual, norm, MLP or MoE experts,
// residual), the same math and layouts as dgx::llm::cuda::TransformerLayer with one rank (tp = cp = ep = 1).
// With LoRA (spec.lora) the wrapped linears add s·(x·Aᵀ)·Bᵀ; the reference computes every gradient (the frozen
// weights' too: a frozen layer simply does not use them). Packed samples (spec.sample_len) attend within the sample.
#pragma once

#include "dgx/llm/kernels/layer_spec.hpp"
#include "dgx/llm/reference/matrix.hpp"
#include "dgx/llm/reference/ops.hpp"

#include <optional>
#include <random>
#include <vector>

namespace dgx::llm::reference {

/// Weights in [out, in] layout (y = x Wᵀ). Gradients use the same struct.
struct LayerWeights {
  std::vector<double> norm1_gamma, norm1_beta, norm2_gamma, norm2_beta;  ///< betas: layernorm only
  Matrix qkv;                                                            ///< [(q_heads + 2 kv_heads)·d, hidden]
  Matrix proj;                                                           ///< [hidden, q_heads·d]
  Matrix fc1;                                                            ///< dense: [fc1_width, hidden]
  Matrix fc2;                                                            ///< dense: [hidden, ffn]
  Matrix router;                                                         ///< MoE: [experts, hidden]
  std::vector<Matrix> expert_fc1;                                        ///< MoE: per expert [fc1_width, hidden]
  std::vector<Matrix> expert_fc2;                                        ///< MoE: per expert [hidden, ffn]
  /// LoRA adapters: A [rank, in] and B [out, rank] of each wrapped linear; empty matrices when not wrapped.
  struct Adapter {
    Matrix a, b;
  };
  Adapter qkv_lora, proj_lora, fc1_lora, fc2_lora;

  /// Random weights scaled 1/sqrt(fan-in), norm gammas near 1; adapters A scaled 1/sqrt(in), B 1/sqrt(rank)
  /// (LoRA starts B at zero; a random B lets every gradient be checked).
  [[nodiscard]] static LayerWeights random(const kernels::LayerSpec& spec, std::mt19937_64& rng);
  /// Zeros of the same shapes (a gradient accumulator).
  [[nodiscard]] static LayerWeights zeros_like(const LayerWeights& w);
  /// Every value in one flat list, in a fixed order (for comparisons and finite differences).
  [[nodiscard]] std::vector<double*> values();
};

class ReferenceLayer {
public:
  /// Throws std::invalid_argument unless spec is valid with tp = cp = ep = 1.
  explicit ReferenceLayer(kernels::LayerSpec spec);

  /// y [micro_batch·seq_len, hidden]; keeps what the backward needs.
  Matrix forward(const LayerWeights& w, const Matrix& x);
  /// dx, and the weight gradients added into `grads`. Needs a forward first.
  Matrix backward(const LayerWeights& w, const Matrix& dy, LayerWeights& grads);

  [[nodiscard]] const kernels::LayerSpec& spec() const { return spec_; }

private:
  Matrix mlp_forward(const LayerWeights& w, const Matrix& in);
  /// x·Wᵀ (+ s·(x·Aᵀ)·Bᵀ with an adapter).
  [[nodiscard]] Matrix linear(const Matrix& x, const Matrix& weight, const LayerWeights::Adapter& adapter) const;
  /// The input gradient of linear() from its output gradient dy; adds dW (and dA, dB) into the gradients.
  Matrix linear_backward(const Matrix& x, const Matrix& dy, const Matrix& weight, const LayerWeights::Adapter& adapter,
                         Matrix& dweight, LayerWeights::Adapter& dadapter) const;
  Matrix mlp_backward(const LayerWeights& w, const Matrix& dout, LayerWeights& grads);

  kernels::LayerSpec spec_;
  kernels::RankShapes shapes_;
  AttentionShape attention_;
  std::int64_t positions_ = 0;  ///< rotary positions restart every this many tokens (sequence or packed sample)
  struct SavedState {
    Matrix x, r1, qkv, f1;
    NormResult n1, n2;
    AttentionResult attn;
    Matrix permuted;                // MoE: routed rows
    std::vector<Matrix> expert_f1;  // MoE: fc1 output per expert
  };
  std::optional<SavedState> saved_;
};

}  // namespace dgx::llm::reference
