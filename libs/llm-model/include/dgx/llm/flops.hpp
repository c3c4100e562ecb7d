// Model FLOPs and parameter counts (the conventions MFU is computed with).
#pragma once

#include "dgx/llm/model_config.hpp"

#include <string_view>

namespace dgx::llm {

/// How the attention score/value products (the s/h term) are counted.
/// - full: every query attends to every key, as NVIDIA's published MFU tables count it (calibration set).
/// - causal: only the lower triangle, half the full term: the work a causal kernel really needs.
enum class AttentionFlops : unsigned char { full, causal };

[[nodiscard]] std::string_view to_string(AttentionFlops convention);

/// Training FLOPs (forward + backward = 3 × forward) of one sequence of seq_len tokens:
///   s·(12·L·h²·(1 + g/a + s/h·c) + 6·m·L·ffn·h·k + 6·V·h)
/// with g/a = kv groups / heads (QKV + output projections: 2h² + 2h²·g/a per token forward, ×3), c = 1 (full)
/// or 1/2 (causal) for the attention core (QK^T and PV: 4·s·h per token forward, ×3), m = MLP matrices (3 for
/// gated SwiGLU giving NVIDIA's 18·L·ffn·h, 2 for GELU / squared ReLU giving 12·L·ffn·h: 2·h·ffn per matrix per
/// token forward, ×3), k = experts per token (top-k; 1 for dense), and 6·V·h for the LM head. The router,
/// norms and elementwise ops are not counted (the published convention).
[[nodiscard]] double model_flops_per_sequence(const ModelConfig& model, int seq_len,
                                              AttentionFlops convention = AttentionFlops::full);

struct ParameterCount {
  double embedding = 0;             ///< V·h (input embedding; learned positions add seq·h)
  double output_layer = 0;          ///< V·h, 0 when tied to the embedding
  double attention_per_layer = 0;   ///< QKV + output projection (+ biases)
  double mlp_per_layer = 0;         ///< all experts (+ router) for MoE
  double active_mlp_per_layer = 0;  ///< the top-k experts a token uses (+ router)
  double norms_per_layer = 0;
  double final_norm = 0;
  double total = 0;   ///< every parameter
  double active = 0;  ///< parameters one token touches (MoE: top-k experts)
};

[[nodiscard]] ParameterCount count_parameters(const ModelConfig& model);

}  // namespace dgx::llm
