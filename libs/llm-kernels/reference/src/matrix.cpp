#include "dgx/llm/reference/matrix.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>

namespace dgx::llm::reference {

Matrix matmul_nt(const Matrix& a, const Matrix& b) {
  assert(a.cols == b.cols);
  Matrix c(a.rows, b.rows);
  for (std::int64_t i = 0; i < a.rows; ++i) {
    for (std::int64_t j = 0; j < b.rows; ++j) {
      double sum = 0;
      for (std::int64_t k = 0; k < a.cols; ++k) {
        sum += a.at(i, k) * b.at(j, k);
      }
      c.at(i, j) = sum;
    }
  }
  return c;
}

Matrix matmul_nn(const Matrix& a, const Matrix& b) {
  assert(a.cols == b.rows);
  Matrix c(a.rows, b.cols);
  for (std::int64_t i = 0; i < a.rows; ++i) {
    for (std::int64_t k = 0; k < a.cols; ++k) {
      const double x = a.at(i, k);
      for (std::int64_t j = 0; j < b.cols; ++j) {
        c.at(i, j) += x * b.at(k, j);
      }
    }
  }
  return c;
}

Matrix matmul_tn(const Matrix& a, const Matrix& b) {
  assert(a.rows == b.rows);
  Matrix c(a.cols, b.cols);
  for (std::int64_t k = 0; k < a.rows; ++k) {
    for (std::int64_t i = 0; i < a.cols; ++i) {
      const double x = a.at(k, i);
      for (std::int64_t j = 0; j < b.cols; ++j) {
        c.at(i, j) += x * b.at(k, j);
      }
    }
  }
  return c;
}

void add_into(Matrix& target, const Matrix& other) {
  assert(target.rows == other.rows && target.cols == other.cols);
  for (std::size_t i = 0; i < target.v.size(); ++i) {
    target.v[i] += other.v[i];
  }
}

Matrix add(const Matrix& a, const Matrix& b) {
  Matrix c = a;
  add_into(c, b);
  return c;
}

Matrix random_matrix(std::int64_t rows, std::int64_t cols, double scale, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uniform(-scale, scale);
  Matrix m(rows, cols);
  for (double& x : m.v) {
    x = uniform(rng);
  }
  return m;
}

double round_bf16(double x) {
  float f = static_cast<float>(x);
  if (!std::isfinite(f)) {
    return f;
  }
  std::uint32_t bits = 0;
  std::memcpy(&bits, &f, sizeof bits);
  bits += 0x7fffu + ((bits >> 16) & 1u);  // round to nearest even on the 16 dropped bits
  bits &= 0xffff0000u;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

double round_fp8(double x, bool e5m2) {
  const int mantissa = e5m2 ? 2 : 3;
  const double max_finite = e5m2 ? 57344.0 : 448.0;
  const int min_exponent = e5m2 ? -14 : -6;  // smallest normal exponent; below it the spacing stays fixed
  if (std::isnan(x)) {
    return x;
  }
  const double magnitude = std::fabs(x);
  if (magnitude == 0) {
    return 0.0;
  }
  if (magnitude >= max_finite) {
    return std::copysign(max_finite, x);
  }
  const int exponent = std::max(static_cast<int>(std::floor(std::log2(magnitude))), min_exponent);
  const double spacing = std::ldexp(1.0, exponent - mantissa);
  const double rounded = std::nearbyint(magnitude / spacing) * spacing;  // ties to even (default rounding)
  return std::copysign(std::min(rounded, max_finite), x);
}

void round_bf16(Matrix& m) {
  for (double& x : m.v) {
    x = round_bf16(x);
  }
}

double decode_bf16(std::uint16_t bits) {
  const std::uint32_t wide = std::uint32_t(bits) << 16;
  float f = 0;
  std::memcpy(&f, &wide, sizeof f);
  return f;
}

double decode_fp8(std::uint8_t bits, bool e5m2) {
  const int mantissa_bits = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
  const int exponent = (bits >> mantissa_bits) & (e5m2 ? 0x1f : 0x0f);
  const int mantissa = bits & ((1 << mantissa_bits) - 1);
  const double sign = (bits & 0x80) ? -1.0 : 1.0;
  if (e5m2 && exponent == 0x1f) {
    return mantissa == 0 ? sign * INFINITY : NAN;
  }
  if (!e5m2 && exponent == 0x0f && mantissa == 0x07) {
    return NAN;  // E4M3 has no infinities, one NaN pattern
  }
  if (exponent == 0) {
    return sign * std::ldexp(double(mantissa), 1 - bias - mantissa_bits);  // subnormal
  }
  return sign * std::ldexp(1.0 + double(mantissa) / double(1 << mantissa_bits), exponent - bias);
}

double relative_l2(const std::vector<double>& a, const std::vector<double>& b) {
  assert(a.size() == b.size());
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff += (a[i] - b[i]) * (a[i] - b[i]);
    norm += b[i] * b[i];
  }
  if (norm == 0) {
    return diff == 0 ? 0.0 : INFINITY;
  }
  return std::sqrt(diff / norm);
}

}  // namespace dgx::llm::reference
