// Software conversions between float and the 16- and 8-bit floating-point formats of dgx_dtype (FP16, BF16,
// FP8 E4M3, FP8 E5M2), for host-side reductions and correctness checks. Round to nearest even. Overflow gives
// infinity for the IEEE-like formats (FP16, E5M2); E4M3 has no infinity and saturates to its largest finite
// value, 448, as FP8 training casts do (__NV_SATFINITE).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace dgx::sdk::numeric {

/// A small binary floating-point format: 1 sign bit, `exponent_bits`, `mantissa_bits`.
struct Minifloat {
  int exponent_bits;
  int mantissa_bits;
  bool ieee_specials;  // true: the top exponent encodes inf/NaN (FP16, E5M2); false: only all-ones is NaN (E4M3)

  [[nodiscard]] constexpr int bias() const { return (1 << (exponent_bits - 1)) - 1; }
  [[nodiscard]] constexpr int max_exponent_field() const { return (1 << exponent_bits) - 1; }
};

// The formats as functions and internal-linkage constants, not inline variables, which a plugin built with default
// visibility would export and share with every other such plugin (see error.hpp).
constexpr Minifloat fp16_format() { return {5, 10, true}; }
constexpr Minifloat e4m3_format() { return {4, 3, false}; }
constexpr Minifloat e5m2_format() { return {5, 2, true}; }
constexpr Minifloat kFp16 = fp16_format();  // one copy per translation unit
constexpr Minifloat kE4M3 = e4m3_format();
constexpr Minifloat kE5M2 = e5m2_format();

inline double decode(const Minifloat& f, std::uint32_t bits) {
  const int m_bits = f.mantissa_bits;
  const bool negative = ((bits >> (f.exponent_bits + m_bits)) & 1u) != 0;
  const int exponent = static_cast<int>((bits >> m_bits) & static_cast<std::uint32_t>(f.max_exponent_field()));
  const std::uint32_t mantissa = bits & ((1u << m_bits) - 1);
  double value;
  if (f.ieee_specials && exponent == f.max_exponent_field()) {
    value = mantissa == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  } else if (!f.ieee_specials && exponent == f.max_exponent_field() && mantissa == (1u << m_bits) - 1) {
    value = std::numeric_limits<double>::quiet_NaN();
  } else if (exponent == 0) {
    value = std::ldexp(static_cast<double>(mantissa), 1 - f.bias() - m_bits);
  } else {
    value = std::ldexp(1.0 + std::ldexp(static_cast<double>(mantissa), -m_bits), exponent - f.bias());
  }
  return negative ? -value : value;
}

inline std::uint32_t encode(const Minifloat& f, double x) {
  const int m_bits = f.mantissa_bits;
  const std::uint32_t sign = std::signbit(x) ? 1u << (f.exponent_bits + m_bits) : 0u;
  const std::uint32_t exponent_all_ones = static_cast<std::uint32_t>(f.max_exponent_field()) << m_bits;
  const std::uint32_t nan =
      f.ieee_specials ? exponent_all_ones | (1u << (m_bits - 1)) : exponent_all_ones | ((1u << m_bits) - 1);
  if (std::isnan(x)) {
    return sign | nan;
  }
  // Largest finite: E4M3 gives up its all-ones pattern to NaN.
  const int max_field = f.ieee_specials ? f.max_exponent_field() - 1 : f.max_exponent_field();
  const std::uint32_t max_mantissa = f.ieee_specials ? (1u << m_bits) - 1 : (1u << m_bits) - 2;
  const std::uint32_t max_finite = (static_cast<std::uint32_t>(max_field) << m_bits) | max_mantissa;
  const std::uint32_t overflow = f.ieee_specials ? exponent_all_ones : max_finite;
  const double a = std::abs(x);
  if (std::isinf(a)) {
    return sign | overflow;
  }
  if (a == 0) {
    return sign;
  }

  int exponent = std::ilogb(a);
  const int min_exponent = 1 - f.bias();
  double scaled;  // the significand in units of the last mantissa bit
  std::uint32_t field;
  if (exponent < min_exponent) {  // subnormal
    scaled = std::ldexp(a, m_bits - min_exponent);
    field = 0;
  } else {
    scaled = std::ldexp(a, m_bits - exponent) - std::ldexp(1.0, m_bits);
    field = static_cast<std::uint32_t>(exponent + f.bias());
  }
  auto q = static_cast<std::uint32_t>(std::nearbyint(scaled));  // the default rounding mode: to nearest even
  if (q == (1u << m_bits)) {                                    // rounded up into the next binade
    q = 0;
    ++field;
  }
  const std::uint32_t bits = (field << m_bits) | q;
  if (field > static_cast<std::uint32_t>(max_field) || bits > max_finite) {
    return sign | overflow;
  }
  return sign | bits;
}

inline float bf16_to_float(std::uint16_t bits) {
  const std::uint32_t wide = static_cast<std::uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &wide, sizeof f);
  return f;
}

inline std::uint16_t float_to_bf16(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if (std::isnan(f)) {
    return static_cast<std::uint16_t>((bits >> 16) | 0x40);
  }
  bits += 0x7fffu + ((bits >> 16) & 1u);  // round to nearest even
  return static_cast<std::uint16_t>(bits >> 16);
}

inline float fp16_to_float(std::uint16_t bits) { return static_cast<float>(decode(fp16_format(), bits)); }
inline std::uint16_t float_to_fp16(float f) { return static_cast<std::uint16_t>(encode(fp16_format(), f)); }
inline float e4m3_to_float(std::uint8_t bits) { return static_cast<float>(decode(e4m3_format(), bits)); }
inline std::uint8_t float_to_e4m3(float f) { return static_cast<std::uint8_t>(encode(e4m3_format(), f)); }
inline float e5m2_to_float(std::uint8_t bits) { return static_cast<float>(decode(e5m2_format(), bits)); }
inline std::uint8_t float_to_e5m2(float f) { return static_cast<std::uint8_t>(encode(e5m2_format(), f)); }

}  // namespace dgx::sdk::numeric
