// Model FLOPs (the conventions MFU is computed with), and the catalog's parameter counts.
#pragma once

#include "dgx/catalog/model_params.hpp"
#include "dgx/llm/catalog.hpp"

#include <string_view>

namespace dgx::llm {

/// How the attention score/value products (the s/h term) are counted.
/// - full: every query attends to every key, as NVIDIA's published MFU tables count it (calibration set).
/// - causal: only the lower triangle, half the full term: the work a causal kernel really needs.
enum class AttentionFlops : unsigned char { full, causal };

[[nodiscard]] std::string_view to_string(AttentionFlops convention);

/// Training FLOPs (forward + backward = 3 × forward) of one sequence of seq_len tokens: 6 × the linear weights a
/// token passes through (attention projections, the MLP or its top-k and shared experts, the LM head) plus the
/// attention core, 6·s·a·(d_qk + d_v)·c per token (QKᵀ and PV), c = 1 (full) or 1/2 (causal). For a GQA decoder
/// with a·d = h this is NVIDIA's s·(12·L·h²·(1 + g/a + s/h·c) + 6·m·L·ffn·h·k + 6·V·h): g/a = kv groups / heads,
/// m = MLP matrices (3 for gated SwiGLU giving 18·L·ffn·h, 2 for GELU / squared ReLU giving 12·L·ffn·h),
/// k = experts per token. MLA counts its latent down- and up-projections, MoE models with leading dense layers
/// count those layers' MLP, sliding-window layers count their window only (chunked layers their chunk, DSA its top-k
/// keys and its indexer over every earlier key), an MTP module counts its layer, projection and LM head. A grouped
/// model sums each group's mixer and MLP: Mamba-2 and Gated DeltaNet layers count their projections and 3 × their
/// chunked scan's forward (mixer_work.hpp), under either convention; MLP-only and mixer-only layers what they have.
/// The router, norms and elementwise ops are not counted (the published convention).
[[nodiscard]] double model_flops_per_sequence(const ModelConfig& model, int seq_len,
                                              AttentionFlops convention = AttentionFlops::full);

/// Parameter counts are the catalog's (dgx/catalog/model_params.hpp): facts of the architecture.
using catalog::count_parameters;
using catalog::ParameterCount;

}  // namespace dgx::llm
