// The serving ops in double precision, with the CUDA kernels' conventions: rotary embedding of one head at an explicit
// position (rotate-half), and decode attention — one query per sequence against that sequence's cached keys and
// values, every one of which precedes the query (no mask).
#pragma once

#include "dgx/llm/reference/matrix.hpp"

#include <cstdint>
#include <vector>

namespace dgx::llm::reference {

/// Rotates the head of `head_dim` values at `head` (in place) by position · θ^(−2i/d), pairs (x[i], x[i + d/2]).
void rope_at(double* head, std::int64_t head_dim, std::int64_t position, double theta);

struct DecodeShape {
  std::int64_t q_heads = 0, kv_heads = 0, head_dim = 0;
};

/// q [batch, q_heads · d]; keys[b] and values[b] [len_b, kv_heads · d]: sequence b's cache. Query head h reads KV
/// head h / (q_heads / kv_heads); scores scaled by 1/sqrt(d). Returns [batch, q_heads · d].
[[nodiscard]] Matrix decode_attention(const Matrix& q, const std::vector<Matrix>& keys,
                                      const std::vector<Matrix>& values, const DecodeShape& shape);

}  // namespace dgx::llm::reference
