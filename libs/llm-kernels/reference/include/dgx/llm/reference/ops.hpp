// The ops of a transformer layer in double precision, forward and backward, with the same conventions as the
// CUDA kernels: row-major [tokens, features]; QKV rows hold q heads, then k heads, then v heads; rotary
// embedding rotates halves (x[i], x[i + d/2]); causal masks are top-left aligned per sequence.
#pragma once

#include "dgx/llm/kernels/layer_spec.hpp"
#include "dgx/llm/reference/matrix.hpp"

#include <cstdint>
#include <vector>

namespace dgx::llm::reference {

using kernels::Activation;
using kernels::Norm;

inline constexpr double kNormEpsilon = 1e-5;

// Norms ---------------------------------------------------------------------------------------------------------
struct NormResult {
  Matrix y;
  std::vector<double> mean;  ///< layernorm only
  std::vector<double> rstd;  ///< 1 / sqrt(var + eps) (layernorm) or 1 / sqrt(mean(x²) + eps) (rmsnorm)
};
struct NormGrads {
  Matrix dx;
  std::vector<double> dgamma, dbeta;  ///< dbeta: layernorm only
};
/// y = x̂·γ (+ β for layernorm), x̂ normalized per row.
[[nodiscard]] NormResult norm_forward(Norm norm, const Matrix& x, const std::vector<double>& gamma,
                                      const std::vector<double>& beta);
[[nodiscard]] NormGrads norm_backward(Norm norm, const Matrix& x, const std::vector<double>& gamma,
                                      const NormResult& saved, const Matrix& dy);

// Activations ---------------------------------------------------------------------------------------------------
/// swiglu: in [rows, 2f] = [gate | up] -> silu(gate)·up [rows, f]; gelu (tanh approximation) and squared_relu:
/// in [rows, f] -> [rows, f].
[[nodiscard]] Matrix activation_forward(Activation activation, const Matrix& in);
/// Gradient with respect to `in`, given the gradient of the output.
[[nodiscard]] Matrix activation_backward(Activation activation, const Matrix& in, const Matrix& dout);

// Rotary embedding ----------------------------------------------------------------------------------------------
/// Rotates the q and k heads of `qkv` [batch·seq, (q_heads + 2 kv_heads)·d] in place; position = token index
/// within its sequence. inverse = true applies the transposed rotation (the backward of the forward).
void rope(Matrix& qkv, std::int64_t seq_len, std::int64_t q_heads, std::int64_t kv_heads, std::int64_t head_dim,
          double theta, bool inverse);

// Attention -----------------------------------------------------------------------------------------------------
struct AttentionShape {
  std::int64_t batch = 1, seq_len = 0, q_heads = 0, kv_heads = 0, head_dim = 0;
  bool causal = true;
};
struct AttentionResult {
  Matrix o;                 ///< [batch·seq, q_heads·d]
  std::vector<double> lse;  ///< log-sum-exp of each (batch, head, query) row of the scaled scores
};
/// Scaled (1/sqrt(d)) dot-product attention of the q, k, v heads of `qkv`, grouped-query (q head h uses kv head
/// h / (q_heads / kv_heads)).
[[nodiscard]] AttentionResult attention_forward(const Matrix& qkv, const AttentionShape& shape);
/// d(qkv) in the layout of `qkv`.
[[nodiscard]] Matrix attention_backward(const Matrix& qkv, const AttentionResult& forward, const Matrix& dout,
                                        const AttentionShape& shape);

// Embedding, loss -----------------------------------------------------------------------------------------------
[[nodiscard]] Matrix embedding_forward(const Matrix& table, const std::vector<std::int64_t>& ids);
/// dtable (same shape as the table), accumulated over repeated ids.
[[nodiscard]] Matrix embedding_backward(std::int64_t vocab, const Matrix& dout, const std::vector<std::int64_t>& ids);

struct LossResult {
  double loss = 0;          ///< mean over tokens of lse − logit[target]
  std::vector<double> lse;  ///< per token
};
[[nodiscard]] LossResult cross_entropy_forward(const Matrix& logits, const std::vector<std::int64_t>& targets);
/// d(mean loss) / d(logits) = (softmax − onehot) / tokens.
[[nodiscard]] Matrix cross_entropy_backward(const Matrix& logits, const std::vector<std::int64_t>& targets,
                                            const LossResult& forward);

}  // namespace dgx::llm::reference
