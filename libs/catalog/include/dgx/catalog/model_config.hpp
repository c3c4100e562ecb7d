// The architecture of a decoder-only model, as read from configs/models/<name>.toml or a Hugging Face config.json
// (hf_config.hpp). A model is a default layer (the top-level keys) and, where its layers differ (hybrid attention and
// state-space models, interleaved MoE, per-layer heterogeneous blocks), groups of layers that override it.
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

/// What mixes information across the tokens of a layer.
/// - attention: softmax attention (GQA or MLA) over the whole context, a sliding window or a chunk of it;
/// - linear_attention: gated delta-rule linear attention (Gated DeltaNet, arXiv 2412.06464; Qwen3-Next and Qwen3.5's
///   "linear_attention" layers): a short causal convolution, then a fixed-size state per head updated token by
///   token, read in chunks for a prompt;
/// - mamba2: Mamba-2's selective state space mixer (SSD, arXiv 2405.21060; Nemotron-H's "M" layers): a fixed-size
///   state per head, chunked scan for a prompt;
/// - none: no token mixer (an MLP-only layer: Nemotron-H's "-" and "E" layers, Nemotron Super's no-op attention).
enum class Mixer : std::uint8_t { attention, linear_attention, mamba2, none };

[[nodiscard]] std::string_view to_string(Mixer mixer);
[[nodiscard]] std::optional<Mixer> parse_mixer(std::string_view text);

/// The MLP of a layer: dense (ffn), the routed experts of the model (moe), or none (a mixer-only layer).
enum class Mlp : std::uint8_t { dense, moe, none };

[[nodiscard]] std::string_view to_string(Mlp mlp);
[[nodiscard]] std::optional<Mlp> parse_mlp(std::string_view text);

/// Gated DeltaNet sizes (config.json's linear_num_key_heads, linear_num_value_heads, linear_key_head_dim,
/// linear_value_head_dim, linear_conv_kernel_dim). Its state is value_heads × key_head_dim × value_head_dim.
struct LinearAttentionSizes {
  int key_heads = 0;
  int value_heads = 0;
  int key_head_dim = 0;
  int value_head_dim = 0;
  int conv_kernel = 0;
};

/// Mamba-2 sizes (config.json's mamba_num_heads, mamba_head_dim, ssm_state_size, n_groups, conv_kernel,
/// chunk_size). Its inner width is heads × head_dim, its state heads × head_dim × state.
struct Mamba2Sizes {
  int heads = 0;
  int head_dim = 0;
  int state = 0;
  int groups = 0;
  int conv_kernel = 0;
  int chunk = 0;
};

/// Layers that differ from the model's default layer (`[[layer_group]]` of a model file). The groups of a model
/// cover all of its layers; their order is not modelled (a pipeline stage gets its share of each group).
struct LayerGroup {
  int count = 0;
  Mixer mixer = Mixer::attention;
  int window = 0;        ///< attention: sliding window (tokens); 0: the whole context
  int chunk = 0;         ///< attention: chunked local attention (Llama 4's attention_chunk_size); 0: none
  int kv_groups = 0;     ///< attention: key/value heads of these layers; 0: the model's
  Mlp mlp = Mlp::dense;  ///< dense: an MLP of `ffn`; moe: the model's experts; none
  std::int64_t ffn = 0;  ///< dense MLP inner size; 0: the model's dense ffn
};

/// The format a checkpoint ships its weights in (hf_quant_config.json, config.json's quantization_config).
/// - bf16: unquantized;
/// - fp8: FP8 E4M3 with per-tensor (or per-channel) scales;
/// - fp8_block: FP8 E4M3 with 128×128 weight blocks and 1×128 activation groups (DeepSeek-V3, Qwen3-FP8);
/// - mxfp4: OCP MXFP4, E2M1 with one E8M0 scale per 32 (gpt-oss's experts);
/// - nvfp4: NVIDIA's FP4, E2M1 with one E4M3 scale per 16 and a per-tensor FP32 scale;
/// - int4: 4-bit integer weights with a scale per group, 16-bit activations (W4A16: compressed-tensors'
///   pack-quantized, Kimi K2.5's experts).
enum class WeightFormat : std::uint8_t { bf16, fp8, fp8_block, mxfp4, nvfp4, int4 };

[[nodiscard]] std::string_view to_string(WeightFormat format);
[[nodiscard]] std::optional<WeightFormat> parse_weight_format(std::string_view text);

/// What of a checkpoint is quantized to its format: every linear layer but the embedding and the LM head (all), the
/// MLPs with the attention in BF16 (mlp: DeepSeek-V3.1-NVFP4), or the routed experts alone (experts: gpt-oss keeps
/// attention and router in BF16).
enum class QuantizedPart : std::uint8_t { all, mlp, experts };

[[nodiscard]] std::string_view to_string(QuantizedPart part);
[[nodiscard]] std::optional<QuantizedPart> parse_quantized_part(std::string_view text);

struct CheckpointFormat {
  WeightFormat weights = WeightFormat::bf16;
  QuantizedPart quantized = QuantizedPart::all;
};

struct ModelConfig {
  std::string name;     ///< catalog key, e.g. "llama3.1-70b"
  std::string display;  ///< e.g. "Llama 3.1 70B"
  std::string source;   ///< public model card / config the numbers come from
  /// Other names users type for the same architecture (`aliases` of the file: "llama3.3-70b"); find_model takes them.
  std::vector<std::string> aliases;
  /// The names checkpoints and tools print for it ("meta-llama/Meta-Llama-3.1-70B", MLPerf's "llama2_70b_lora",
  /// torchtitan's "llama3 8B"): `checkpoints` of the file; model_for_printed_name recognises them.
  std::vector<std::string> checkpoints;

  std::int64_t hidden = 0;
  std::int64_t ffn = 0;  ///< MLP inner size (per expert for MoE)
  std::int64_t vocab = 0;
  int layers = 0;
  int heads = 0;      ///< attention (query) heads, a
  int kv_groups = 0;  ///< key/value heads, g (g == a: multi-head attention)
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
  /// The gated activation's inputs are clamped (gpt-oss: the gate at +glu_clamp, the linear part to ±glu_clamp,
  /// then GLU with a +1 offset on the linear part); 0: no clamp.
  double glu_clamp = 0;
  bool qk_norm = false;  ///< per-head RMSNorm of queries and keys before rotary (Qwen3's q_norm / k_norm)

  Mixer mixer = Mixer::attention;  ///< the default layer's token mixer
  bool mlp_free = false;           ///< the default layer has no MLP (a mixer-only layer)
  int attention_chunk = 0;         ///< chunked local attention (tokens) of the default layer; 0: none
  /// DeepSeek sparse attention (DSA, DeepSeek-V3.2, GLM-5): a lightning indexer of indexer_heads × indexer_head_dim
  /// scores every earlier key in FP8, and each query attends to the sparse_topk best (config.json's index_topk);
  /// 0: dense attention.
  int sparse_topk = 0;
  int indexer_heads = 0;
  int indexer_head_dim = 0;
  /// A sigmoid gate of the queries' width on the attention output (Qwen3.5's attn_output_gate): the query
  /// projection is twice as wide.
  bool attention_output_gate = false;
  LinearAttentionSizes linear_attention;  ///< for linear_attention layers
  Mamba2Sizes mamba;                      ///< for mamba2 layers
  /// Groups of layers that differ from the default layer; empty: `layers` layers of the default kind (with
  /// dense_layers leading dense layers and a sliding_window_layers share of sliding-window layers).
  std::vector<LayerGroup> layer_groups;
  /// Parameters outside the decoder that a checkpoint ships (a multimodal model's vision encoder and projector):
  /// counted in its total, never in the text model's work.
  double extra_params = 0;
  CheckpointFormat checkpoint;  ///< the format its released weights are in

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
  /// Whether the layers differ in kind (layer_groups) rather than being `layers` default layers.
  [[nodiscard]] bool grouped() const { return !layer_groups.empty(); }
  /// The layers as groups: layer_groups, or one group of `layers` default layers.
  [[nodiscard]] std::vector<LayerGroup> layer_mix() const;
  /// The model as if every layer were of `group`'s kind (layers = group.count, no groups, no leading dense layers,
  /// no MTP module): what the per-layer models (FLOPs, parameters, ops, memory) evaluate, one group at a time.
  [[nodiscard]] ModelConfig layer_view(const LayerGroup& group) const;
};

}  // namespace dgx::catalog
