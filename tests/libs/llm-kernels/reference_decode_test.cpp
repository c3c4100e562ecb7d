// The serving reference against the training reference: decode attention of a sequence's last token is the last row
// of causal attention over the whole sequence, and rope_at rotates as the sequence rope does.
#include "dgx/llm/reference/decode.hpp"
#include "dgx/llm/reference/ops.hpp"

#include <doctest/doctest.h>

using namespace dgx::llm::reference;

TEST_CASE("decode attention of the last token equals the last row of causal attention over the sequence") {
  std::mt19937_64 rng(3);
  const std::int64_t seq = 9, q_heads = 4, kv_heads = 2, d = 8;
  const Matrix qkv = random_matrix(seq, (q_heads + 2 * kv_heads) * d, 1.0, rng);
  const AttentionResult full = attention_forward(
      qkv, {.batch = 1, .seq_len = seq, .q_heads = q_heads, .kv_heads = kv_heads, .head_dim = d, .causal = true});
  Matrix q(1, q_heads * d), k(seq, kv_heads * d), v(seq, kv_heads * d);
  for (std::int64_t i = 0; i < q_heads * d; ++i) {
    q.at(0, i) = qkv.at(seq - 1, i);
  }
  for (std::int64_t t = 0; t < seq; ++t) {
    for (std::int64_t i = 0; i < kv_heads * d; ++i) {
      k.at(t, i) = qkv.at(t, q_heads * d + i);
      v.at(t, i) = qkv.at(t, (q_heads + kv_heads) * d + i);
    }
  }
  const Matrix out = decode_attention(q, {k}, {v}, {.q_heads = q_heads, .kv_heads = kv_heads, .head_dim = d});
  for (std::int64_t i = 0; i < q_heads * d; ++i) {
    CHECK(out.at(0, i) == doctest::Approx(full.o.at(seq - 1, i)));
  }
}

TEST_CASE("rope_at rotates a head as the sequence rope does at that position") {
  std::mt19937_64 rng(4);
  const std::int64_t seq = 5, d = 8;
  Matrix qkv = random_matrix(seq, 3 * d, 1.0, rng);
  Matrix rotated = qkv;
  rope(rotated, seq, 1, 1, d, 10000.0, false);
  for (std::int64_t t = 0; t < seq; ++t) {
    std::vector<double> head(qkv.v.begin() + t * 3 * d, qkv.v.begin() + t * 3 * d + d);
    rope_at(head.data(), d, t, 10000.0);
    for (std::int64_t i = 0; i < d; ++i) {
      CHECK(head[std::size_t(i)] == doctest::Approx(rotated.at(t, i)));
    }
  }
}
