#include "dgx/core/support/mann_whitney.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace dgx {

namespace {

struct Ranked {
  double rank_sum_a = 0;
  double tie_term = 0;  // sum of t^3 - t over groups of t tied values
  bool ties = false;
};

// Average ranks (1-based) of the pooled samples; the sum of a's ranks and the tie correction term.
Ranked rank(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<std::pair<double, bool>> pooled;  // value, from a
  for (const double x : a) {
    pooled.emplace_back(x, true);
  }
  for (const double x : b) {
    pooled.emplace_back(x, false);
  }
  std::sort(pooled.begin(), pooled.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
  Ranked out;
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) {
      ++j;
    }
    const double average = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;  // ranks i+1 .. j
    for (std::size_t k = i; k < j; ++k) {
      if (pooled[k].second) {
        out.rank_sum_a += average;
      }
    }
    const double t = static_cast<double>(j - i);
    if (j - i > 1) {
      out.ties = true;
    }
    out.tie_term += t * t * t - t;
    i = j;
  }
  return out;
}

// P(U <= u) under the null hypothesis (no ties): the share of the C(n1 + n2, n1) arrangements with each U,
// counted by the classic recurrence c(m, n, k) = c(m - 1, n, k - n) + c(m, n - 1, k).
double exact_cdf(std::size_t n1, std::size_t n2, double u) {
  const std::size_t max_u = n1 * n2;
  // table[m][n] is a vector over u; build it for m <= n1, n <= n2.
  std::vector<std::vector<std::vector<double>>> c(n1 + 1, std::vector<std::vector<double>>(n2 + 1));
  for (std::size_t m = 0; m <= n1; ++m) {
    for (std::size_t n = 0; n <= n2; ++n) {
      std::vector<double>& cell = c[m][n];
      cell.assign(m * n + 1, 0.0);
      if (m == 0 || n == 0) {
        cell[0] = 1;
        continue;
      }
      for (std::size_t k = 0; k <= m * n; ++k) {
        const double from_a = k >= n && k - n < c[m - 1][n].size() ? c[m - 1][n][k - n] : 0;
        const double from_b = k < c[m][n - 1].size() ? c[m][n - 1][k] : 0;
        cell[k] = from_a + from_b;
      }
    }
  }
  const std::vector<double>& counts = c[n1][n2];
  const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
  double below = 0;
  for (std::size_t k = 0; k <= max_u && static_cast<double>(k) <= u + 1e-9; ++k) {
    below += counts[k];
  }
  return below / total;
}

}  // namespace

UTest mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b) {
  UTest t;
  t.n1 = a.size();
  t.n2 = b.size();
  if (a.empty() || b.empty()) {
    return t;
  }
  const double n1 = static_cast<double>(t.n1), n2 = static_cast<double>(t.n2);
  const Ranked r = rank(a, b);
  t.u = r.rank_sum_a - n1 * (n1 + 1) / 2;
  if (!r.ties && t.n1 <= 20 && t.n2 <= 20) {
    t.exact = true;
    const double upper = std::max(t.u, n1 * n2 - t.u);  // the distribution is symmetric around n1 n2 / 2
    t.p_value = std::min(1.0, 2 * (1 - exact_cdf(t.n1, t.n2, upper - 1)));
    return t;
  }
  const double n = n1 + n2;
  const double mean = n1 * n2 / 2;
  const double variance = n1 * n2 / 12 * ((n + 1) - r.tie_term / (n * (n - 1)));
  if (variance <= 0) {
    return t;  // every value equal: no evidence of a difference
  }
  const double z = std::max(0.0, std::abs(t.u - mean) - 0.5) / std::sqrt(variance);
  t.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return t;
}

}  // namespace dgx
