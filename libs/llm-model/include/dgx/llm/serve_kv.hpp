// What one request keeps on one GPU of the fullest stage while it is served: the KV cache of the layers that keep
// every token (full attention, MLA's latent, DSA's indexer keys, a drafter's layers), the KV of the layers that keep at
// most a window or a chunk of tokens (vLLM's and TensorRT-LLM's sliding-window and chunked-local KV managers free
// the blocks a query can no longer see), and the fixed recurrent state of Mamba-2 and linear-attention layers (their
// SSM or delta-rule state and convolution state, whatever the request's length). With guaranteed-no-evict
// scheduling a request reserves its footprint at its whole prompt + output.
#pragma once

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/serve_ops.hpp"

#include <vector>

namespace dgx::llm {

struct KvFootprint {
  /// Layers that keep at most `tokens` tokens of a request (a window, a chunk), `bytes_per_token` of KV each token.
  struct Capped {
    double tokens = 0;
    double bytes_per_token = 0;
  };
  double per_token = 0;  ///< bytes each token of a request adds in the layers that keep every token
  std::vector<Capped> capped;
  double per_sequence = 0;  ///< bytes of recurrent state a request keeps, whatever its length

  /// Bytes a request of `tokens` tokens keeps: per_token · n + Σ min(n, cap) · bytes + per_sequence.
  [[nodiscard]] double bytes(double tokens) const;
  /// Whether the bytes grow in proportion to the tokens (only layers that keep every token): a KV cache of C bytes
  /// then holds C / per_token tokens, however they are split into requests.
  [[nodiscard]] bool proportional() const { return capped.empty() && per_sequence == 0; }
  /// KV bytes one decode iteration reads for `decode_seqs` sequences of `decode_kv_tokens` tokens in all: every
  /// token's KV in the full layers, at most the cap of the capped ones, each sequence's recurrent state.
  [[nodiscard]] double read_bytes(double decode_seqs, double decode_kv_tokens) const;
};

/// Whether every layer of `model` is one attention kind that keeps every token of a request (no groups, windows,
/// chunks, DSA or scan layers): its KV is kv_bytes_per_token's formula alone.
[[nodiscard]] bool uniform_kv(const ModelConfig& model);

/// The footprint of a request of `model` served in `shape`'s layout and KV format (per GPU of the fullest stage, each
/// layer kind at its share of the stage: serve_layer_groups). For a model whose layers all keep every token,
/// per_token is kv_bytes_per_token.
[[nodiscard]] KvFootprint kv_footprint(const ModelConfig& model, const ServeShape& shape);

}  // namespace dgx::llm
