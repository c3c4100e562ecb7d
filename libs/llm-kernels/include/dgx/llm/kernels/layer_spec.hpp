// What one transformer layer is and how it is laid out on one rank: the architecture, the parallel layout, the
// precision and the recompute policy, and the per-rank shapes that follow from them. CUDA-free: the CPU
// reference, the plugins' configuration code and the projection all read it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dgx::llm::kernels {

/// MLP activation: swiglu is gated (fc1 writes gate and up halves), gelu (tanh approximation) and squared_relu
/// are not.
enum class Activation : std::uint8_t { swiglu, gelu, squared_relu };
enum class Norm : std::uint8_t { rmsnorm, layernorm };
/// GEMM precision. Attention, norms and elementwise ops stay BF16 in both (the Megatron / Transformer Engine
/// FP8 recipe).
enum class Precision : std::uint8_t { bf16, fp8 };
/// FP8 per-tensor scaling: `current` takes the amax of the tensor being cast (one extra read), `delayed` the
/// maximum of the amax history of the previous iterations (Transformer Engine's DelayedScaling).
enum class Fp8Scaling : std::uint8_t { current, delayed };
/// Activation recompute: selective reruns the attention core in the backward pass, full the whole forward.
enum class Recompute : std::uint8_t { none, selective, full };

[[nodiscard]] std::string_view to_string(Activation value);
[[nodiscard]] std::string_view to_string(Norm value);
[[nodiscard]] std::string_view to_string(Precision value);
[[nodiscard]] std::string_view to_string(Fp8Scaling value);
[[nodiscard]] std::string_view to_string(Recompute value);
[[nodiscard]] std::optional<Activation> parse_activation(std::string_view text);
[[nodiscard]] std::optional<Norm> parse_norm(std::string_view text);
[[nodiscard]] std::optional<Precision> parse_precision(std::string_view text);
[[nodiscard]] std::optional<Fp8Scaling> parse_fp8_scaling(std::string_view text);
[[nodiscard]] std::optional<Recompute> parse_recompute(std::string_view text);

/// One decoder layer of the model (the whole model's values, before any parallel split).
struct Architecture {
  std::int64_t hidden = 0;
  std::int64_t ffn = 0;        ///< MLP inner size (per expert for MoE)
  std::int64_t heads = 0;      ///< query heads
  std::int64_t kv_groups = 0;  ///< key/value heads (== heads: multi-head attention)
  std::int64_t head_dim = 0;   ///< 0: hidden / heads
  Activation activation = Activation::swiglu;
  Norm norm = Norm::rmsnorm;
  bool rope = true;
  double rope_theta = 500000.0;  ///< Llama 3
  std::int64_t experts = 0;      ///< MoE experts per layer; 0 or 1: dense MLP
  std::int64_t top_k = 0;        ///< experts per token (MoE)
  std::int64_t vocab = 0;        ///< for the first / last stage ops (embedding, LM head, loss); 0: not used

  [[nodiscard]] std::int64_t dim() const { return head_dim > 0 ? head_dim : (heads > 0 ? hidden / heads : 0); }
  [[nodiscard]] bool gated() const { return activation == Activation::swiglu; }
  [[nodiscard]] bool moe() const { return experts > 1; }
};

/// The parallel layout seen by one rank. Sequence parallelism is always on with TP (Megatron's default for
/// TP > 1): norms and residuals run on tokens / tp rows.
struct Layout {
  int tp = 1;  ///< splits query/key/value heads and the MLP (ffn) across ranks
  int cp = 1;  ///< splits the sequence (load-balanced ring attention)
  int ep = 1;  ///< splits the experts
};

/// LoRA fine-tuning of the layer (Hu et al., arXiv 2106.09685): with a rank, every base weight is frozen (no
/// weight gradient, and only the inputs an adapter reads are kept), and each wrapped linear layer W gets
/// y = x·Wᵀ + (alpha / rank)·(x·Aᵀ)·Bᵀ with A [rank, in] and B [out, rank] trained, in BF16. Under TP the
/// adapters of column-parallel layers (qkv, fc1) split the rank and the output, those of row-parallel ones (proj,
/// fc2) the input, with B on the sequence-parallel shard (dgx/llm/finetune_ops.hpp names the same shapes).
struct Lora {
  int rank = 0;  ///< 0: no adapters, every weight trains; > 0 with no target: the frozen layer alone
  double alpha = 0;
  bool qkv = false, proj = false, fc1 = false, fc2 = false;  ///< the wrapped layers

  [[nodiscard]] bool enabled() const { return rank > 0; }
  [[nodiscard]] double scale() const { return alpha / rank; }
  [[nodiscard]] int targets() const { return int(qkv) + int(proj) + int(fc1) + int(fc2); }
};

struct LayerSpec {
  Architecture arch;
  Layout layout;
  std::int64_t seq_len = 0;
  std::int64_t micro_batch = 1;
  Precision precision = Precision::bf16;
  Fp8Scaling scaling = Fp8Scaling::delayed;
  int amax_history = 16;  ///< delayed scaling window (iterations)
  Recompute recompute = Recompute::none;
  Lora lora;  ///< LoRA adapters on a frozen layer; rank 0: full training
  /// Packed samples of this length (a divisor of seq_len): the attention runs per sample, micro_batch · seq_len /
  /// sample_len attentions of sample_len tokens (positions restart per sample), as Transformer Engine's THD
  /// attention does with packed fine-tuning data. 0: one sequence of seq_len. Needs cp = 1.
  std::int64_t sample_len = 0;
};

/// The shapes one rank computes with. GEMM rows are tokens (micro_batch · seq_len / cp); norms and residuals
/// run on the sequence-parallel shard (tokens / tp).
struct RankShapes {
  std::int64_t tokens = 0;
  std::int64_t sp_tokens = 0;
  std::int64_t hidden = 0;
  std::int64_t q_heads = 0;
  std::int64_t kv_heads = 0;  ///< max(1, kv_groups / tp): replicated when there are fewer groups than ranks
  std::int64_t head_dim = 0;
  std::int64_t qkv_width = 0;  ///< (q_heads + 2 kv_heads) · head_dim
  std::int64_t ffn = 0;        ///< ffn / tp
  std::int64_t fc1_width = 0;  ///< 2 ffn when gated
  /// MoE with balanced routing (Megatron's --moe-router-force-load-balancing): the tokens · top_k routed rows of
  /// this rank are ordered by expert; row r carries token r mod tokens with gate weight 1 / top_k and belongs to
  /// local expert r / rows_per_expert. The router GEMM runs, but its output does not steer the tokens.
  std::int64_t local_experts = 0;    ///< experts / ep
  std::int64_t rows_per_expert = 0;  ///< tokens · top_k · ep / experts
  std::int64_t q_len = 0;            ///< query rows of this rank's sequence chunk (seq_len / cp), or of a sample
  std::int64_t attention_batch = 0;  ///< sequences (or packed samples) the attention runs over
  int attention_steps = 1;  ///< cp: one causal step on the local chunk, cp − 1 ring steps against half chunks
};

/// Throws std::invalid_argument naming the first inconsistent value (e.g. heads not divisible by tp).
void validate(const LayerSpec& spec);

/// Per-rank shapes; `spec` must be valid.
[[nodiscard]] RankShapes rank_shapes(const LayerSpec& spec);

/// One line: "h=8192 ffn=28672 heads=64 kv=8 d=128 swiglu seq=8192 mbs=1 tp=1 cp=1 ep=1 bf16 recompute=none".
[[nodiscard]] std::string describe(const LayerSpec& spec);

/// Model FLOPs of one layer, forward + backward (3 × forward), for one rank's micro-batch: GEMMs and attention
/// with the full (non-causal) s² term over the sequence (or the packed sample), NVIDIA's convention (DESIGN.md),
/// divided over tp · cp. The MoE router and top_k experts per token are included. With LoRA, as executed: the
/// frozen GEMMs twice their forward (no weight gradient), the attention 3 ×, the adapters 6·rank·(in + out) per
/// token (dgx::llm::finetune_flops_per_sequence).
[[nodiscard]] double model_flops(const LayerSpec& spec);

}  // namespace dgx::llm::kernels
