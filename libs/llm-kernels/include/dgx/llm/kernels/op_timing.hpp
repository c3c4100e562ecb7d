// What a measurement of one op says: which op (name, pass, kind), at which exact per-rank shape and precision,
// how long it took, and the FLOPs and bytes it moves. CUDA-free, so the projection can consume measured op
// times without a CUDA toolkit. Names follow dgx::llm::transformer_layer_ops ("qkv", "attention", "fc1",
// "norm_attn", ...), and key() has the same form as dgx::llm::Op::key(), so a measured time can replace the
// model's estimate of the same op.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dgx/llm/pass.hpp"

namespace dgx::llm::kernels {

enum class OpKind : std::uint8_t { gemm, attention, memory };
/// The model's Pass (dgx/llm/pass.hpp): forward, dgrad, wgrad or backward.
using llm::Pass;

[[nodiscard]] std::string_view to_string(OpKind kind);

/// C[m, n] = A[m, k] · B[k, n], `groups` independent GEMMs of that shape (MoE experts).
struct GemmDims {
  std::int64_t m = 0, n = 0, k = 0, groups = 1;
};

/// Flash attention over `batch` sequences of q_len queries against kv_len keys; causal or full.
struct AttentionDims {
  std::int64_t batch = 0, heads = 0, kv_heads = 0, q_len = 0, kv_len = 0, head_dim = 0;
  bool causal = true;
};

struct OpTiming {
  std::string name;  ///< e.g. "fc1", "attention", "norm_attn", "cast_fc2_grad"
  Pass pass = Pass::forward;
  OpKind kind = OpKind::memory;
  std::string precision = "bf16";  ///< "bf16", "fp8" (GEMMs: the input format), "fp32"
  GemmDims gemm;                   ///< kind == gemm
  AttentionDims attention;         ///< kind == attention
  double seconds = 0;              ///< per execution (median over the profiled repeats)
  double flops = 0;                ///< executed FLOPs (GEMM: 2mnk·groups; attention: the unmasked part)
  double bytes = 0;                ///< bytes read + written (memory-bound ops; an estimate for the others)
  bool recompute = false;          ///< a forward op rerun in the backward pass
  int calls = 1;                   ///< executions of this op per layer step (e.g. CP ring steps)

  /// "fc1.wgrad fp8 m=28672 n=8192 k=8192", "attention.forward bf16 b=1 h=64 kv=8 q=8192 k=8192 d=128
  /// causal", "swiglu.forward bytes=1.2e+09". Recomputed ops get the same key as the original.
  [[nodiscard]] std::string key() const;
  [[nodiscard]] double tflops() const { return seconds > 0 ? flops / seconds / 1e12 : 0.0; }
  [[nodiscard]] double bandwidth() const { return seconds > 0 ? bytes / seconds : 0.0; }  ///< bytes/s
};

/// FLOPs of a GEMM: 2·m·n·k per group.
[[nodiscard]] double gemm_flops(const GemmDims& dims);
/// Executed FLOPs of one attention call, forward (QKᵀ and PV: 4·d per unmasked query–key pair and head) or
/// backward (2.5× forward: dQ, dK, dV, dP and the recomputed QKᵀ). A causal square mask computes q(q+1)/2
/// pairs; a rectangular causal call is top-left aligned.
[[nodiscard]] double attention_flops(const AttentionDims& dims, bool backward);
/// Bytes an attention call reads and writes once (Q, K, V, O, and their gradients in the backward).
[[nodiscard]] double attention_bytes(const AttentionDims& dims, bool backward);

/// The measurement of one layer's forward + backward step on one rank.
struct LayerTiming {
  std::vector<OpTiming> ops;           ///< in execution order, forward then backward
  double forward_seconds = 0;          ///< sum of the forward ops
  double backward_seconds = 0;         ///< sum of the backward ops (recompute included)
  double step_seconds = 0;             ///< the whole step timed alone (no per-op events), when measured
  double model_flops = 0;              ///< model_flops(spec) of the step
  std::uint64_t peak_bytes = 0;        ///< peak device memory of the layer (pool high-water mark)
  std::uint64_t weight_bytes = 0;      ///< weights (BF16 and their FP8 copies)
  std::uint64_t gradient_bytes = 0;    ///< FP32 main gradients
  std::uint64_t activation_bytes = 0;  ///< kept from the forward for the backward (what each layer stores)

  /// Model TFLOP/s of the step: model_flops / step time (step_seconds, or the op sum when not measured).
  [[nodiscard]] double model_tflops() const;
};

}  // namespace dgx::llm::kernels
