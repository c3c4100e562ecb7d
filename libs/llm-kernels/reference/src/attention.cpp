#include "dgx/llm/reference/ops.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dgx::llm::reference {

namespace {

/// Column offsets of head `h` of q, and of kv head `g` of k and v, in a QKV row.
struct Columns {
  const AttentionShape& s;
  [[nodiscard]] std::int64_t q(std::int64_t h) const { return h * s.head_dim; }
  [[nodiscard]] std::int64_t k(std::int64_t g) const { return (s.q_heads + g) * s.head_dim; }
  [[nodiscard]] std::int64_t v(std::int64_t g) const { return (s.q_heads + s.kv_heads + g) * s.head_dim; }
  [[nodiscard]] std::int64_t group(std::int64_t h) const { return h / (s.q_heads / s.kv_heads); }
};

bool visible(const AttentionShape& s, std::int64_t i, std::int64_t j) { return !s.causal || j <= i; }

/// Scaled scores of query row i of head h in sequence b against every key.
std::vector<double> scores(const Matrix& qkv, const AttentionShape& s, std::int64_t b, std::int64_t h, std::int64_t i) {
  const Columns col{s};
  const double scale = 1.0 / std::sqrt(double(s.head_dim));
  std::vector<double> out(std::size_t(s.seq_len), -std::numeric_limits<double>::infinity());
  for (std::int64_t j = 0; j < s.seq_len; ++j) {
    if (!visible(s, i, j)) {
      continue;
    }
    double dot = 0;
    for (std::int64_t d = 0; d < s.head_dim; ++d) {
      dot += qkv.at(b * s.seq_len + i, col.q(h) + d) * qkv.at(b * s.seq_len + j, col.k(col.group(h)) + d);
    }
    out[std::size_t(j)] = dot * scale;
  }
  return out;
}

}  // namespace

AttentionResult attention_forward(const Matrix& qkv, const AttentionShape& s) {
  const Columns col{s};
  AttentionResult r{Matrix(qkv.rows, s.q_heads * s.head_dim),
                    std::vector<double>(std::size_t(s.batch * s.q_heads * s.seq_len), 0.0)};
  for (std::int64_t b = 0; b < s.batch; ++b) {
    for (std::int64_t h = 0; h < s.q_heads; ++h) {
      for (std::int64_t i = 0; i < s.seq_len; ++i) {
        const std::vector<double> sc = scores(qkv, s, b, h, i);
        double max = -std::numeric_limits<double>::infinity();
        for (const double x : sc) {
          max = std::max(max, x);
        }
        double sum = 0;
        for (const double x : sc) {
          sum += std::exp(x - max);
        }
        const double lse = max + std::log(sum);
        r.lse[std::size_t((b * s.q_heads + h) * s.seq_len + i)] = lse;
        for (std::int64_t j = 0; j < s.seq_len; ++j) {
          const double p = std::exp(sc[std::size_t(j)] - lse);
          for (std::int64_t d = 0; d < s.head_dim; ++d) {
            r.o.at(b * s.seq_len + i, col.q(h) + d) += p * qkv.at(b * s.seq_len + j, col.v(col.group(h)) + d);
          }
        }
      }
    }
  }
  return r;
}

Matrix attention_backward(const Matrix& qkv, const AttentionResult& forward, const Matrix& dout,
                          const AttentionShape& s) {
  const Columns col{s};
  const double scale = 1.0 / std::sqrt(double(s.head_dim));
  Matrix dqkv(qkv.rows, qkv.cols);
  for (std::int64_t b = 0; b < s.batch; ++b) {
    for (std::int64_t h = 0; h < s.q_heads; ++h) {
      const std::int64_t g = col.group(h);
      for (std::int64_t i = 0; i < s.seq_len; ++i) {
        const std::int64_t qi = b * s.seq_len + i;
        const std::vector<double> sc = scores(qkv, s, b, h, i);
        const double lse = forward.lse[std::size_t((b * s.q_heads + h) * s.seq_len + i)];
        double delta = 0;  // rowsum(dO ∘ O)
        for (std::int64_t d = 0; d < s.head_dim; ++d) {
          delta += dout.at(qi, col.q(h) + d) * forward.o.at(qi, col.q(h) + d);
        }
        for (std::int64_t j = 0; j < s.seq_len; ++j) {
          if (!visible(s, i, j)) {
            continue;
          }
          const std::int64_t kj = b * s.seq_len + j;
          const double p = std::exp(sc[std::size_t(j)] - lse);
          double dp = 0;
          for (std::int64_t d = 0; d < s.head_dim; ++d) {
            dp += dout.at(qi, col.q(h) + d) * qkv.at(kj, col.v(g) + d);
            dqkv.at(kj, col.v(g) + d) += p * dout.at(qi, col.q(h) + d);
          }
          const double ds = p * (dp - delta) * scale;
          for (std::int64_t d = 0; d < s.head_dim; ++d) {
            dqkv.at(qi, col.q(h) + d) += ds * qkv.at(kj, col.k(g) + d);
            dqkv.at(kj, col.k(g) + d) += ds * qkv.at(qi, col.q(h) + d);
          }
        }
      }
    }
  }
  return dqkv;
}

}  // namespace dgx::llm::reference
