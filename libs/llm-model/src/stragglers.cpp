#include "dgx/llm/stragglers.hpp"

#include <cmath>
#include <cstddef>

namespace dgx::llm {

namespace {

/// Acklam's rational approximation of the inverse standard normal CDF (relative error below 1.2e-9):
/// polynomial coefficients, highest power first (the denominators end in the constant 1).
constexpr double kCentralNumerator[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                                        1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
constexpr double kCentralDenominator[] = {-5.447609879822406e+01, 1.615858368580409e+02,  -1.556989798598866e+02,
                                          6.680131188771972e+01,  -1.328068155288572e+01, 1.0};
constexpr double kTailNumerator[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                     -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
constexpr double kTailDenominator[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                       3.754408661907416e+00, 1.0};
constexpr double kTailBreak = 0.02425;

template <std::size_t N> double polynomial(const double (&coefficients)[N], double x) {
  double value = 0;
  for (const double c : coefficients) {
    value = value * x + c;
  }
  return value;
}

double tail(double p) {
  const double q = std::sqrt(-2 * std::log(p));
  return polynomial(kTailNumerator, q) / polynomial(kTailDenominator, q);
}

/// Inverse of the standard normal CDF for p in (0, 1).
double inverse_normal_cdf(double p) {
  if (p < kTailBreak) {
    return tail(p);
  }
  if (p > 1 - kTailBreak) {
    return -tail(1 - p);
  }
  const double q = p - 0.5;
  return polynomial(kCentralNumerator, q * q) * q / polynomial(kCentralDenominator, q * q);
}

}  // namespace

double expected_max_standard_normal(int n) {
  if (n <= 1) {
    return 0;
  }
  return inverse_normal_cdf((n - 0.375) / (n + 0.25));
}

double straggler_fraction(double cv, int gpus) { return cv * expected_max_standard_normal(gpus); }

}  // namespace dgx::llm
