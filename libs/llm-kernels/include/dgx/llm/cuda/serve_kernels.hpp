// Launchers of the serving kernels: a paged KV cache with rotary embedding fused into the append, decode attention
// over it (flash-decoding: each sequence split into parts combined in a second pass), the fused residual-add +
// RMSNorm and SwiGLU that write the next GEMM's input format (BF16 or FP8 E4M3 with a static scale), a small-M GEMM
// (GEMV) that streams its weights, and greedy sampling. Sequence lengths live on the device, so an iteration
// captured in a CUDA graph replays with growing contexts. Every launcher checks its launch; none synchronizes.
#pragma once

#include "dgx/llm/cuda/kernels.hpp"
#include "dgx/llm/kernels/serve_spec.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace dgx::llm::cuda {

/// One layer's paged KV cache: K and V each [blocks, block_tokens, kv_heads, head_dim] in the cache format.
/// Sequence b's token t lives in block block_table[b · max_blocks + t / block_tokens], slot t % block_tokens.
/// FP8 stores value / scale_inv (E4M3, saturating); reads multiply by scale_inv.
struct PagedKv {
  void* k = nullptr;
  void* v = nullptr;
  const std::int32_t* block_table = nullptr;
  std::int64_t max_blocks = 0;  ///< blocks per sequence in the table
  std::int64_t block_tokens = kernels::kKvBlockTokens;
  std::int64_t kv_heads = 0;
  std::int64_t head_dim = 0;
  kernels::KvFormat format = kernels::KvFormat::bf16;
  float k_scale_inv = 1.0f;
  float v_scale_inv = 1.0f;
};

/// Rotary embedding at explicit positions fused with the KV cache append, for `tokens` rows of a QKV buffer (q heads,
/// then k heads, then v heads, `row_stride` elements apart): token i belongs to sequence seq[i] at position
/// lengths[seq[i]] + offset[i]. Its q and k heads are rotated in place (a prompt's attention reads them from the
/// row), and its k and v heads written to the cache. `rope_table` [positions, head_dim / 2] from rope_table(); null: no
/// rotation (learned positions).
void rope_append_kv(bf16* qkv, std::int64_t tokens, std::int64_t row_stride, std::int64_t q_heads,
                    const std::int32_t* seq, const std::int32_t* offset, const std::int32_t* lengths,
                    const float2* rope_table, const PagedKv& cache, cudaStream_t stream);

/// lengths[b] += add for b < count.
void advance_lengths(std::int32_t* lengths, std::int64_t count, int add, cudaStream_t stream);

/// Decode attention: for each b < batch, the query row q + b · q_stride (q_heads heads of head_dim, BF16) against
/// the first lengths[b] + pending tokens of sequence b's cache (no mask: all of them precede it), scaled by
/// 1/sqrt(head_dim); the output row out + b · o_stride. Each sequence is split into `splits` parts whose partial
/// softmax sums are combined in a second kernel (flash-decoding); `workspace` holds them.
struct DecodeAttentionArgs {
  std::int64_t batch = 0;
  std::int64_t q_heads = 0;
  const bf16* q = nullptr;
  std::int64_t q_stride = 0;
  bf16* out = nullptr;
  std::int64_t o_stride = 0;
  const std::int32_t* lengths = nullptr;
  int pending = 1;
  int splits = 1;
  float* workspace = nullptr;
};
/// Parts per sequence that keep every SM busy for `batch` sequences of at most `max_context` tokens.
[[nodiscard]] int decode_attention_splits(std::int64_t batch, std::int64_t q_heads, std::int64_t kv_heads,
                                          std::int64_t max_context);
[[nodiscard]] std::size_t decode_attention_workspace_bytes(std::int64_t batch, std::int64_t q_heads,
                                                           std::int64_t head_dim, int splits);
void decode_attention(const DecodeAttentionArgs& args, const PagedKv& cache, cudaStream_t stream);

/// The residual stream plus the output of the previous block, normalized: when delta is not null,
/// stream[r] += delta[r] (in place); out[r] = rmsnorm(stream[r]) · gamma, BF16, or FP8 E4M3 of that × out_scale.
void add_rmsnorm(bf16* stream, const bf16* delta, const bf16* gamma, void* out, bool out_fp8, float out_scale,
                 std::int64_t rows, std::int64_t cols, cudaStream_t stream_);

/// SwiGLU of in [rows, 2f] = [gate | up] -> out [rows, f], BF16, or FP8 E4M3 of it × out_scale.
void swiglu_out(const bf16* in, void* out, bool out_fp8, float out_scale, std::int64_t rows, std::int64_t f,
                cudaStream_t stream);

/// out = FP8 E4M3 of x × scale (static scaling: no amax pass).
void cast_fp8_static(const bf16* x, void* out, float scale, std::int64_t n, cudaStream_t stream);

/// ids[r] = the index of the largest of logits[r · cols ...] (greedy sampling).
void argmax_rows(const bf16* logits, std::int64_t rows, std::int64_t cols, std::int32_t* ids, cudaStream_t stream);

/// The largest m gemv() takes.
inline constexpr std::int64_t kGemvMaxRows = 8;
/// y[m, n] = (x[m, k] · W[n, k]ᵀ) · scale with x and W both BF16 or both FP8 E4M3, y BF16, m ≤ kGemvMaxRows and
/// k a multiple of 8: one warp per output column streams its weight row once, for all m rows of x.
void gemv(const void* x, const void* w, bf16* y, std::int64_t m, std::int64_t n, std::int64_t k, bool fp8, float scale,
          cudaStream_t stream);

}  // namespace dgx::llm::cuda
