#include "dgx/llm/reference/ops.hpp"

#include <cmath>

namespace dgx::llm::reference {

void rope(Matrix& qkv, std::int64_t seq_len, std::int64_t q_heads, std::int64_t kv_heads, std::int64_t head_dim,
          double theta, bool inverse) {
  const std::int64_t half = head_dim / 2;
  const double sign = inverse ? -1.0 : 1.0;
  for (std::int64_t t = 0; t < qkv.rows; ++t) {
    const double position = double(t % seq_len);
    for (std::int64_t h = 0; h < q_heads + kv_heads; ++h) {  // q heads then k heads; v is not rotated
      for (std::int64_t i = 0; i < half; ++i) {
        const double angle = position * std::pow(theta, -2.0 * double(i) / double(head_dim));
        const double c = std::cos(angle), s = sign * std::sin(angle);
        double& x1 = qkv.at(t, h * head_dim + i);
        double& x2 = qkv.at(t, h * head_dim + i + half);
        const double a = x1, b = x2;
        x1 = a * c - b * s;
        x2 = b * c + a * s;
      }
    }
  }
}

}  // namespace dgx::llm::reference
