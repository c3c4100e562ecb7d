// The architecture of a decoder-only transformer, as read from configs/models/<name>.toml.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dgx::llm {

/// MLP activation. swiglu is gated (three weight matrices: gate, up, down); gelu and squared_relu are not (two).
enum class Activation : std::uint8_t { swiglu, gelu, squared_relu };

[[nodiscard]] std::string_view to_string(Activation activation);
[[nodiscard]] std::optional<Activation> parse_activation(std::string_view text);

struct ModelConfig {
  std::string name;    ///< catalog key, e.g. "llama3.1-70b"
  std::string display; ///< e.g. "Llama 3.1 70B"
  std::string source;  ///< public model card / config the numbers come from

  int layers = 0;
  std::int64_t hidden = 0;
  std::int64_t ffn = 0; ///< MLP inner size (per expert for MoE)
  int heads = 0;        ///< attention (query) heads, a
  int kv_groups = 0;    ///< key/value heads, g (g == a: multi-head attention)
  std::int64_t vocab = 0;
  Activation activation = Activation::swiglu;
  int seq_len = 0;              ///< default training sequence length
  int context = 0;              ///< longest sequence (prompt + output) served: the file's `context`, else seq_len
  int experts = 1;              ///< MoE experts per layer (1: dense)
  int top_k = 1;                ///< experts each token is routed to
  bool tied_embeddings = false; ///< output layer shares the input embedding matrix
  bool linear_bias = false;     ///< GEMMs carry biases (GPT-3); fused into the GEMM epilogue, no extra pass
  bool rope = true;             ///< rotary position embedding (else learned absolute positions)
  bool norm_bias = false;       ///< LayerNorm with bias (GPT-3, Nemotron); false: RMSNorm (Llama, Mixtral)

  [[nodiscard]] std::int64_t head_dim() const { return hidden / heads; }
  [[nodiscard]] bool gated() const { return activation == Activation::swiglu; }
  [[nodiscard]] bool moe() const { return experts > 1; }
  /// Weight matrices of one MLP (or one expert): 3 when gated, else 2.
  [[nodiscard]] int mlp_matrices() const { return gated() ? 3 : 2; }
  /// Output width of the QKV projection: h·(1 + 2g/a).
  [[nodiscard]] std::int64_t qkv_width() const { return hidden + 2 * head_dim() * kv_groups; }
};

} // namespace dgx::llm
