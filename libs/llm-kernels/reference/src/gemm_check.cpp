#include "dgx/llm/reference/gemm_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace dgx::llm::reference {

std::string GemmSampleCheck::describe() const {
  char text[160];
  std::snprintf(text, sizeof text, "%s: worst error %.3g of the tolerance over %zu sampled entries (FP64 reference)",
                passed() ? "passed" : "FAILED", worst, samples);
  return text;
}

GemmSampleCheck check_gemm_samples(const std::vector<std::vector<double>>& a_rows,
                                   const std::vector<std::vector<double>>& b_rows,
                                   const std::vector<std::vector<double>>& d, double relative, double accumulation) {
  if (d.size() != a_rows.size()) {
    throw std::invalid_argument("check_gemm_samples: one row of D per row of A");
  }
  GemmSampleCheck check;
  for (std::size_t i = 0; i < a_rows.size(); ++i) {
    if (d[i].size() != b_rows.size()) {
      throw std::invalid_argument("check_gemm_samples: one column of D per row of B");
    }
    for (std::size_t j = 0; j < b_rows.size(); ++j) {
      const std::vector<double>& a = a_rows[i];
      const std::vector<double>& b = b_rows[j];
      if (a.size() != b.size()) {
        throw std::invalid_argument("check_gemm_samples: rows of A and B differ in length");
      }
      double reference = 0, magnitude = 0;
      for (std::size_t k = 0; k < a.size(); ++k) {
        reference += a[k] * b[k];
        magnitude += std::fabs(a[k] * b[k]);
      }
      const double tolerance = relative * std::fabs(reference) + accumulation * magnitude + 1e-30;
      const double error = std::fabs(d[i][j] - reference);
      check.worst = std::max(check.worst, std::isfinite(error) ? error / tolerance : INFINITY);
      ++check.samples;
    }
  }
  return check;
}

}  // namespace dgx::llm::reference
