// Central finite differences for the reference's gradient tests.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <random>
#include <vector>

namespace dgx::llm::testing {

/// d loss / d *x by central differences (x is restored).
inline double numeric_gradient(double* x, const std::function<double()>& loss, double step = 1e-5) {
  const double saved = *x;
  *x = saved + step;
  const double plus = loss();
  *x = saved - step;
  const double minus = loss();
  *x = saved;
  return (plus - minus) / (2 * step);
}

/// Checks `analytic[i]` against the numeric gradient of `loss` with respect to *values[i] for up to `samples`
/// indices drawn at random (all of them when there are fewer).
inline void check_gradients(const std::vector<double*>& values, const std::vector<double>& analytic,
                            const std::function<double()>& loss, std::size_t samples, std::mt19937_64& rng,
                            const char* what) {
  REQUIRE(values.size() == analytic.size());
  std::vector<std::size_t> indices(values.size());
  for (std::size_t i = 0; i < indices.size(); ++i) {
    indices[i] = i;
  }
  std::shuffle(indices.begin(), indices.end(), rng);
  if (indices.size() > samples) {
    indices.resize(samples);
  }
  for (const std::size_t i : indices) {
    const double numeric = numeric_gradient(values[i], loss);
    INFO(what << " [" << i << "]: analytic " << analytic[i] << ", numeric " << numeric);
    CHECK(std::fabs(numeric - analytic[i]) <= 1e-6 + 1e-5 * std::fabs(numeric));
  }
}

inline std::vector<double*> pointers(std::vector<double>& v) {
  std::vector<double*> out;
  for (double& x : v) {
    out.push_back(&x);
  }
  return out;
}

/// Σ a·b: the scalar loss whose gradient with respect to `a` is `b`.
inline double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    sum += a[i] * b[i];
  }
  return sum;
}

}  // namespace dgx::llm::testing
