// Launchers of our memory-bound kernels: norms, activations, rotary embedding, residual add, embedding,
// cross-entropy, MoE row permutations and fills. Row-major BF16 tensors, FP32 math and FP32 statistics; 16-byte
// vector loads where the row length allows. Every launcher checks its launch; none synchronizes.
#pragma once

#include "dgx/llm/kernels/layer_spec.hpp"

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace dgx::llm::cuda {

using bf16 = __nv_bfloat16;

// Norms --------------------------------------------------------------------------------------------------------
/// y = x̂ · γ (+ β for layernorm); keeps mean (layernorm) and rstd per row for the backward.
void norm_forward(kernels::Norm norm, const bf16* x, const bf16* gamma, const bf16* beta, bf16* y, float* mean,
                  float* rstd, std::int64_t rows, std::int64_t cols, cudaStream_t stream);
/// Scratch the backward needs for its per-block partial γ/β gradients.
[[nodiscard]] std::size_t norm_backward_workspace_bytes(std::int64_t cols);
/// dx from dy; dgamma (and dbeta) += this batch's gradient (FP32 main gradients).
void norm_backward(kernels::Norm norm, const bf16* x, const bf16* gamma, const float* mean, const float* rstd,
                   const bf16* dy, bf16* dx, float* dgamma, float* dbeta, void* workspace, std::int64_t rows,
                   std::int64_t cols, cudaStream_t stream);

// Activations --------------------------------------------------------------------------------------------------
/// swiglu: in [rows, 2f] = [gate | up] -> out [rows, f]; gelu, squared_relu: in [rows, f] -> out [rows, f].
void activation_forward(kernels::Activation activation, const bf16* in, bf16* out, std::int64_t rows, std::int64_t f,
                        cudaStream_t stream);
/// din (the shape of `in`) from dout.
void activation_backward(kernels::Activation activation, const bf16* in, const bf16* dout, bf16* din, std::int64_t rows,
                         std::int64_t f, cudaStream_t stream);

// Rotary embedding ---------------------------------------------------------------------------------------------
/// cos/sin table [positions, head_dim / 2] of angle position · θ^(−2i/d), computed in double precision.
void rope_table(float2* table, std::int64_t positions, std::int64_t head_dim, double theta, cudaStream_t stream);
/// Rotates the first `heads` heads of each row in place (q heads then k heads of a QKV row); the position of
/// row t is t mod seq_len. inverse: the transposed rotation (the backward).
void rope_apply(bf16* rows, std::int64_t tokens, std::int64_t row_stride, std::int64_t heads, std::int64_t head_dim,
                std::int64_t seq_len, const float2* table, bool inverse, cudaStream_t stream);

// Elementwise --------------------------------------------------------------------------------------------------
void add(const bf16* a, const bf16* b, bf16* out, std::int64_t n, cudaStream_t stream);
/// offset + uniform values in [-scale, scale] from a counter-based hash of (seed, index): reproducible, fresh per
/// seed.
void fill_uniform(bf16* data, std::int64_t n, std::uint64_t seed, float scale, cudaStream_t stream,
                  float offset = 0.0f);
void fill_uniform(float* data, std::int64_t n, std::uint64_t seed, float scale, cudaStream_t stream,
                  float offset = 0.0f);
/// Integers uniform in [0, limit).
void fill_indices(std::int32_t* data, std::int64_t n, std::uint64_t seed, std::int32_t limit, cudaStream_t stream);
void convert(const float* in, bf16* out, std::int64_t n, cudaStream_t stream);
void convert(const bf16* in, float* out, std::int64_t n, cudaStream_t stream);

// MoE rows (balanced routing, layer_spec.hpp) ------------------------------------------------------------------
/// out[r] = scale · in[r mod tokens] for r < routed_rows: the permute (scale 1) and the unpermute backward.
void gather_rows(const bf16* in, std::int64_t tokens, std::int64_t cols, bf16* out, std::int64_t routed_rows,
                 float scale, cudaStream_t stream);
/// out[t] = scale · Σ_c in[c · tokens + t] over c < copies: the unpermute (scale 1/top_k) and the permute backward.
void sum_rows(const bf16* in, std::int64_t tokens, std::int64_t cols, std::int64_t copies, float scale, bf16* out,
              cudaStream_t stream);

// Embedding and loss (first and last pipeline stage) -----------------------------------------------------------
/// out[t] = table[ids[t] − first_row] when this rank's vocabulary shard [first_row, first_row + rows) holds the
/// id, else zeros (vocabulary-parallel embedding).
void embedding_forward(const std::int32_t* ids, std::int64_t tokens, const bf16* table, std::int64_t first_row,
                       std::int64_t rows, std::int64_t hidden, bf16* out, cudaStream_t stream);
/// dtable[ids[t] − first_row] += dout[t] (FP32 main gradient, atomics).
void embedding_backward(const std::int32_t* ids, std::int64_t tokens, const bf16* dout, std::int64_t first_row,
                        std::int64_t rows, std::int64_t hidden, float* dtable, cudaStream_t stream);
/// loss[t] = logsumexp(logits[t]) − logits[t][target[t]]; lse[t] kept for the backward.
void cross_entropy_forward(const bf16* logits, const std::int32_t* targets, std::int64_t tokens, std::int64_t vocab,
                           float* loss, float* lse, cudaStream_t stream);
/// dlogits = (softmax(logits) − onehot(target)) · grad_scale (1 / tokens for a mean loss).
void cross_entropy_backward(const bf16* logits, const std::int32_t* targets, const float* lse, std::int64_t tokens,
                            std::int64_t vocab, float grad_scale, bf16* dlogits, cudaStream_t stream);

}  // namespace dgx::llm::cuda
