// The architecture of a decoder-only transformer, as read from configs/models/<name>.toml.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dgx::catalog {

/// MLP activation. swiglu is gated (three weight matrices: gate, up, down); gelu and squared_relu are not (two).
enum class Activation : std::uint8_t { swiglu, gelu, squared_relu };

[[nodiscard]] std::string_view to_string(Activation activation);
[[nodiscard]] std::optional<Activation> parse_activation(std::string_view text);

/// Attention projections. gqa: Q, K, V projections with kv_groups key/value heads (multi-head when kv_groups ==
/// heads). mla: DeepSeek's multi-head latent attention: queries and keys/values pass through low-rank latents
/// (q_lora_rank, kv_lora_rank: down-projection, norm, up-projection), keys get a decoupled rotary part of
/// qk_rope_head_dim shared by all heads (DeepSeek-V2, arXiv 2405.04434; DeepSeek-V3, arXiv 2412.19437).
enum class AttentionKind : std::uint8_t { gqa, mla };

[[nodiscard]] std::string_view to_string(AttentionKind kind);
[[nodiscard]] std::optional<AttentionKind> parse_attention_kind(std::string_view text);

struct ModelConfig {
  std::string name;     ///< catalog key, e.g. "llama3.1-70b"
  std::string display;  ///< e.g. "Llama 3.1 70B"
  std::string source;   ///< public model card / config the numbers come from
  /// Other names users type for the same architecture (`aliases` of the file: "llama3.3-70b"); find_model takes them.
  std::vector<std::string> aliases;
  /// The names checkpoints and tools print for it ("meta-llama/Meta-Llama-3.1-70B", MLPerf's "llama2_70b_lora",
  /// torchtitan's "llama3 8B"): `checkpoints` of the file; model_for_printed_name recognises them.
  std::vector<std::string> checkpoints;

  int layers = 0;
  std::int64_t hidden = 0;
  std::int64_t ffn = 0;  ///< MLP inner size (per expert for MoE)
  int heads = 0;         ///< attention (query) heads, a
  int kv_groups = 0;     ///< key/value heads, g (g == a: multi-head attention)
  std::int64_t vocab = 0;
  Activation activation = Activation::swiglu;
  int seq_len = 0;               ///< default training sequence length
  int context = 0;               ///< longest sequence (prompt + output) served: the file's `context`, else seq_len
  int experts = 1;               ///< MoE experts per layer (1: dense)
  int top_k = 1;                 ///< experts each token is routed to
  bool tied_embeddings = false;  ///< output layer shares the input embedding matrix
  bool linear_bias = false;      ///< GEMMs carry biases (GPT-3); fused into the GEMM epilogue, no extra pass
  bool rope = true;              ///< rotary position embedding (else learned absolute positions)
  bool norm_bias = false;        ///< LayerNorm with bias (GPT-3, Nemotron); false: RMSNorm (Llama, Mixtral)

  AttentionKind attention = AttentionKind::gqa;
  int head_dim_override = 0;   ///< `head_dim` where heads · head_dim ≠ hidden (Qwen3, gpt-oss); 0: hidden / heads
  int q_lora_rank = 0;         ///< MLA query latent (0: no query compression)
  int kv_lora_rank = 0;        ///< MLA key/value latent
  int qk_nope_head_dim = 0;    ///< MLA per-head query/key width without rotary embedding
  int qk_rope_head_dim = 0;    ///< MLA decoupled rotary part (one key part shared by all heads)
  int v_head_dim = 0;          ///< MLA per-head value width
  int shared_experts = 0;      ///< MoE: experts of ffn every token passes through besides its top-k
  int dense_layers = 0;        ///< MoE: leading layers with a dense MLP (DeepSeek's first_k_dense_replace)
  std::int64_t dense_ffn = 0;  ///< MLP size of those dense layers (0: ffn)
  int mtp_layers = 0;          ///< multi-token-prediction modules trained with the model (DeepSeek-V3: 1)
  int sliding_window = 0;      ///< local attention window of the sliding-window layers (tokens); 0: none
  double sliding_window_layers = 0;  ///< fraction of the layers that use it (gpt-oss: every other layer, 0.5)
  bool qk_norm = false;              ///< per-head RMSNorm of queries and keys before rotary (Qwen3's q_norm / k_norm)
  /// The gated activation's inputs are clamped (gpt-oss: the gate at +glu_clamp, the linear part to ±glu_clamp,
  /// then GLU with a +1 offset on the linear part); 0: no clamp.
  double glu_clamp = 0;

  [[nodiscard]] bool gated() const { return activation == Activation::swiglu; }
  [[nodiscard]] bool moe() const { return experts > 1; }
  [[nodiscard]] bool mla() const { return attention == AttentionKind::mla; }
  /// Weight matrices of one MLP (or one expert): 3 when gated, else 2.
  [[nodiscard]] int mlp_matrices() const { return gated() ? 3 : 2; }
  /// Per-head query/key width (MLA: the part without and the part with rotary embedding).
  [[nodiscard]] std::int64_t head_dim() const {
    return mla() ? qk_nope_head_dim + qk_rope_head_dim : head_dim_override > 0 ? head_dim_override : hidden / heads;
  }
  /// Per-head value width.
  [[nodiscard]] std::int64_t value_dim() const { return mla() ? v_head_dim : head_dim(); }
  /// Width of all query heads, a · head_dim (= hidden for most models).
  [[nodiscard]] std::int64_t q_width() const { return heads * head_dim(); }
  /// Width of the attention output, the input of the output projection: a · value_dim.
  [[nodiscard]] std::int64_t attention_out_width() const { return heads * value_dim(); }
  /// Output width of the fused QKV projection (GQA): a · d + 2 · g · d.
  [[nodiscard]] std::int64_t qkv_width() const { return q_width() + 2 * head_dim() * kv_groups; }
  /// Key/value heads the attention kernel reads (MLA expands the latent to one per query head).
  [[nodiscard]] int kv_heads() const { return mla() ? heads : kv_groups; }
  /// Decoder layers with a mixture-of-experts MLP.
  [[nodiscard]] int moe_layers() const { return moe() ? layers - dense_layers : 0; }
  /// MLP size of a dense layer.
  [[nodiscard]] std::int64_t dense_mlp_ffn() const { return dense_ffn > 0 ? dense_ffn : ffn; }
};

}  // namespace dgx::catalog
