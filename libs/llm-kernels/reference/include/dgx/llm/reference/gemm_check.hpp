// Checks sampled entries of a GEMM result against a double-precision reference: how a benchmark verifies a big
// GEMM on fresh random data without computing all of it on the CPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dgx::llm::reference {

struct GemmSampleCheck {
  double worst = 0;  ///< largest error / tolerance over the samples (<= 1: passed)
  std::size_t samples = 0;
  [[nodiscard]] bool passed() const { return worst <= 1.0; }
  [[nodiscard]] std::string describe() const;
};

/// `a_rows` holds sampled rows of A [*, k] and `b_rows` sampled rows of B [*, k] (D = A Bᵀ), both decoded and
/// scaled to their real values; `d[i][j]` is the device's D for a_rows[i] and b_rows[j]. The tolerance of each
/// entry is relative · |reference| + accumulation · Σ_k |a_k b_k|: output rounding plus accumulation error.
[[nodiscard]] GemmSampleCheck check_gemm_samples(const std::vector<std::vector<double>>& a_rows,
                                                 const std::vector<std::vector<double>>& b_rows,
                                                 const std::vector<std::vector<double>>& d, double relative,
                                                 double accumulation);

}  // namespace dgx::llm::reference
