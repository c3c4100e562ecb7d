#include "dgx/llm/reference/decode.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dgx::llm::reference {

void rope_at(double* head, std::int64_t head_dim, std::int64_t position, double theta) {
  const std::int64_t half = head_dim / 2;
  for (std::int64_t i = 0; i < half; ++i) {
    const double angle = double(position) * std::pow(theta, -2.0 * double(i) / double(head_dim));
    const double c = std::cos(angle), s = std::sin(angle);
    const double a = head[i], b = head[i + half];
    head[i] = a * c - b * s;
    head[i + half] = b * c + a * s;
  }
}

Matrix decode_attention(const Matrix& q, const std::vector<Matrix>& keys, const std::vector<Matrix>& values,
                        const DecodeShape& s) {
  const std::int64_t d = s.head_dim, group = s.q_heads / s.kv_heads;
  const double scale = 1.0 / std::sqrt(double(d));
  Matrix out(q.rows, s.q_heads * d);
  for (std::int64_t b = 0; b < q.rows; ++b) {
    const Matrix& k = keys[std::size_t(b)];
    const Matrix& v = values[std::size_t(b)];
    for (std::int64_t h = 0; h < s.q_heads; ++h) {
      const std::int64_t kv = (h / group) * d;
      std::vector<double> score(std::size_t(k.rows));
      double top = -std::numeric_limits<double>::infinity();
      for (std::int64_t t = 0; t < k.rows; ++t) {
        double dot = 0;
        for (std::int64_t i = 0; i < d; ++i) {
          dot += q.at(b, h * d + i) * k.at(t, kv + i);
        }
        score[std::size_t(t)] = dot * scale;
        top = std::max(top, dot * scale);
      }
      double sum = 0;
      for (double& x : score) {
        x = std::exp(x - top);
        sum += x;
      }
      for (std::int64_t t = 0; t < k.rows; ++t) {
        for (std::int64_t i = 0; i < d; ++i) {
          out.at(b, h * d + i) += score[std::size_t(t)] / sum * v.at(t, kv + i);
        }
      }
    }
  }
  return out;
}

}  // namespace dgx::llm::reference
