// Flash attention through cuDNN's fused scaled-dot-product-attention engines, built with the backend graph API
// (the graphs cudnn-frontend composes for SDPA: QKᵀ, scale, causal mask, softmax with statistics, PV; and the
// matching backward with dQ accumulated in FP32). BF16 inputs and outputs, FP32 statistics; grouped-query
// attention by broadcasting the kv heads. Tensors are token-major ("BSHD"): token t of sequence b at row
// b·len + t, each row holding the heads; a row stride lets Q, K and V live inside one fused QKV row.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <cuda_runtime_api.h>

namespace dgx::llm::cuda {

struct AttentionConfig {
  std::int64_t batch = 1, q_heads = 0, kv_heads = 0, q_len = 0, kv_len = 0, head_dim = 0;
  bool causal = true;          ///< top-left aligned
  std::int64_t q_stride = 0;   ///< elements between tokens of Q and dQ (0: q_heads · head_dim)
  std::int64_t kv_stride = 0;  ///< of K, V, dK and dV (0: kv_heads · head_dim)
  std::int64_t o_stride = 0;   ///< of O and dO (0: q_heads · head_dim)
  bool fp8 = false;            ///< FP8 attention: not implemented (see FlashAttention)
  bool forward_only = false;   ///< no backward plan (inference): backward() and its workspace are unavailable

  /// "causal GQA SDPA bf16 b=1 hq=64 hkv=8 s_q=8192 s_kv=8192 d=128", for messages.
  [[nodiscard]] std::string describe() const;
};

/// Builds and finalizes the forward and backward operation graphs of `config` without a device (no engine is
/// selected): checks what cuDNN validates on the host (node shapes and types) where CI has no GPU. Throws Error.
void check_attention_graphs(const AttentionConfig& config);

/// The version of the cuDNN library loaded, e.g. "9.19.0".
[[nodiscard]] std::string cudnn_version();

/// A cuDNN handle (cudnnHandle_t behind an opaque pointer, so this header needs no cuDNN).
class Cudnn {
public:
  Cudnn();
  ~Cudnn();
  Cudnn(const Cudnn&) = delete;
  Cudnn& operator=(const Cudnn&) = delete;
  [[nodiscard]] void* get() const { return handle_; }

private:
  void* handle_ = nullptr;
};

/// The forward and backward plans of one attention configuration. Construction throws Error(unsupported)
/// naming the configuration when cuDNN has no engine for it (or when config.fp8 is set: dgxhost runs attention in
/// BF16 in its FP8 recipe, as Megatron and Transformer Engine do by default).
class FlashAttention {
public:
  FlashAttention(const Cudnn& cudnn, const AttentionConfig& config);
  ~FlashAttention();
  FlashAttention(const FlashAttention&) = delete;
  FlashAttention& operator=(const FlashAttention&) = delete;

  [[nodiscard]] const AttentionConfig& config() const;
  [[nodiscard]] std::size_t forward_workspace_bytes() const;
  /// Includes the FP32 dQ accumulator and the softmax-sum scratch of the backward graph.
  [[nodiscard]] std::size_t backward_workspace_bytes() const;

  /// O = softmax(scale · QKᵀ, causal) V and the per-row log-sum-exp `stats` [batch, q_heads, q_len] (FP32).
  void forward(const void* q, const void* k, const void* v, void* o, float* stats, void* workspace,
               cudaStream_t stream) const;
  void backward(const void* q, const void* k, const void* v, const void* o, const void* d_o, const float* stats,
                void* dq, void* dk, void* dv, void* workspace, cudaStream_t stream) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dgx::llm::cuda
