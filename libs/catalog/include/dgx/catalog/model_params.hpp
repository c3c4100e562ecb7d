// Parameter counts of a model, by the architecture its file or config.json describes: what a checkpoint holds
// (total), what one token passes through (active), and the parts the memory models split over GPUs. Facts of the
// architecture, not of a run: the model card's sizes are checked against them (tests/libs/catalog).
#pragma once

#include "dgx/catalog/model_config.hpp"

namespace dgx::catalog {

struct ParameterCount {
  double embedding = 0;             ///< V·h (input embedding; learned positions add seq·h)
  double output_layer = 0;          ///< V·h, 0 when tied to the embedding
  double attention_per_layer = 0;   ///< the token mixer: QKV + output projection (+ biases), or MLA's latents, or
                                    ///< linear attention's or Mamba-2's projections, convolution and gates
  double mlp_per_layer = 0;         ///< all experts, shared ones included (+ router) for MoE
  double active_mlp_per_layer = 0;  ///< the top-k and shared experts a token uses (+ router)
  double dense_mlp_per_layer = 0;   ///< the MLP of a dense layer (for MoE models: their leading dense layers)
  double mtp = 0;                   ///< multi-token-prediction modules (not in total / active, as model cards)
  double norms_per_layer = 0;       ///< one norm before the mixer and one before the MLP, where each is present
  double final_norm = 0;
  double extra = 0;   ///< outside the decoder (a vision encoder): in total, not in active
  double total = 0;   ///< every parameter
  double active = 0;  ///< parameters one token touches (MoE: top-k experts)
};

/// The counts of a model. The per-layer fields describe one layer of a model without layer groups (for a grouped
/// model, count its layer_view of each group); total and active sum every group.
[[nodiscard]] ParameterCount count_parameters(const ModelConfig& model);

/// Weights of one token mixer of `model`'s default layer (a layer_view's), biases and its own norms included.
[[nodiscard]] double mixer_parameters(const ModelConfig& model);

/// The GEMM weights alone of that mixer (what model FLOPs count: 2 per weight per token forward): attention's
/// projections (MLA's latents, DSA's indexer), linear attention's and Mamba-2's input and output projections.
[[nodiscard]] double mixer_linear_weights(const ModelConfig& model);

/// The GEMM weights of one MLP (or one expert) of inner size `ffn`, without biases.
[[nodiscard]] double mlp_linear_weights(const ModelConfig& model, double ffn);

}  // namespace dgx::catalog
