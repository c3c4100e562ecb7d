#include "dgx/llm/reference/ops.hpp"

#include <cmath>

namespace dgx::llm::reference {

NormResult norm_forward(Norm norm, const Matrix& x, const std::vector<double>& gamma, const std::vector<double>& beta) {
  const bool layer = norm == Norm::layernorm;
  NormResult r{Matrix(x.rows, x.cols), std::vector<double>(static_cast<std::size_t>(x.rows), 0.0),
               std::vector<double>(static_cast<std::size_t>(x.rows), 0.0)};
  const double n = double(x.cols);
  for (std::int64_t i = 0; i < x.rows; ++i) {
    double mean = 0;
    if (layer) {
      for (std::int64_t j = 0; j < x.cols; ++j) {
        mean += x.at(i, j);
      }
      mean /= n;
    }
    double second = 0;
    for (std::int64_t j = 0; j < x.cols; ++j) {
      second += (x.at(i, j) - mean) * (x.at(i, j) - mean);
    }
    const double rstd = 1.0 / std::sqrt(second / n + kNormEpsilon);
    r.mean[std::size_t(i)] = mean;
    r.rstd[std::size_t(i)] = rstd;
    for (std::int64_t j = 0; j < x.cols; ++j) {
      const double shift = layer ? beta[std::size_t(j)] : 0.0;
      r.y.at(i, j) = (x.at(i, j) - mean) * rstd * gamma[std::size_t(j)] + shift;
    }
  }
  return r;
}

NormGrads norm_backward(Norm norm, const Matrix& x, const std::vector<double>& gamma, const NormResult& saved,
                        const Matrix& dy) {
  const bool layer = norm == Norm::layernorm;
  const std::size_t cols = std::size_t(x.cols);
  NormGrads g{Matrix(x.rows, x.cols), std::vector<double>(cols, 0.0), std::vector<double>(layer ? cols : 0, 0.0)};
  const double n = double(x.cols);
  for (std::int64_t i = 0; i < x.rows; ++i) {
    const double mean = saved.mean[std::size_t(i)], rstd = saved.rstd[std::size_t(i)];
    // dx = rstd · (ĝ − mean(ĝ) − x̂ · mean(ĝ x̂)) with ĝ = dy·γ; rmsnorm drops the mean(ĝ) term.
    double sum_g = 0, sum_gx = 0;
    for (std::int64_t j = 0; j < x.cols; ++j) {
      const double xhat = (x.at(i, j) - mean) * rstd;
      const double gj = dy.at(i, j) * gamma[std::size_t(j)];
      sum_g += gj;
      sum_gx += gj * xhat;
      g.dgamma[std::size_t(j)] += dy.at(i, j) * xhat;
      if (layer) {
        g.dbeta[std::size_t(j)] += dy.at(i, j);
      }
    }
    for (std::int64_t j = 0; j < x.cols; ++j) {
      const double xhat = (x.at(i, j) - mean) * rstd;
      const double gj = dy.at(i, j) * gamma[std::size_t(j)];
      g.dx.at(i, j) = rstd * (gj - (layer ? sum_g / n : 0.0) - xhat * sum_gx / n);
    }
  }
  return g;
}

}  // namespace dgx::llm::reference
