#include "dgx/llm/reference/ops.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dgx::llm::reference {

Matrix embedding_forward(const Matrix& table, const std::vector<std::int64_t>& ids) {
  Matrix out(std::int64_t(ids.size()), table.cols);
  for (std::size_t t = 0; t < ids.size(); ++t) {
    for (std::int64_t j = 0; j < table.cols; ++j) {
      out.at(std::int64_t(t), j) = table.at(ids[t], j);
    }
  }
  return out;
}

Matrix embedding_backward(std::int64_t vocab, const Matrix& dout, const std::vector<std::int64_t>& ids) {
  Matrix dtable(vocab, dout.cols);
  for (std::size_t t = 0; t < ids.size(); ++t) {
    for (std::int64_t j = 0; j < dout.cols; ++j) {
      dtable.at(ids[t], j) += dout.at(std::int64_t(t), j);
    }
  }
  return dtable;
}

LossResult cross_entropy_forward(const Matrix& logits, const std::vector<std::int64_t>& targets) {
  LossResult r{0.0, std::vector<double>(std::size_t(logits.rows), 0.0)};
  for (std::int64_t t = 0; t < logits.rows; ++t) {
    double max = -std::numeric_limits<double>::infinity();
    for (std::int64_t j = 0; j < logits.cols; ++j) {
      max = std::max(max, logits.at(t, j));
    }
    double sum = 0;
    for (std::int64_t j = 0; j < logits.cols; ++j) {
      sum += std::exp(logits.at(t, j) - max);
    }
    const double lse = max + std::log(sum);
    r.lse[std::size_t(t)] = lse;
    r.loss += lse - logits.at(t, targets[std::size_t(t)]);
  }
  r.loss /= double(logits.rows);
  return r;
}

Matrix cross_entropy_backward(const Matrix& logits, const std::vector<std::int64_t>& targets,
                              const LossResult& forward) {
  Matrix d(logits.rows, logits.cols);
  const double scale = 1.0 / double(logits.rows);
  for (std::int64_t t = 0; t < logits.rows; ++t) {
    for (std::int64_t j = 0; j < logits.cols; ++j) {
      const double p = std::exp(logits.at(t, j) - forward.lse[std::size_t(t)]);
      d.at(t, j) = (p - (j == targets[std::size_t(t)] ? 1.0 : 0.0)) * scale;
    }
  }
  return d;
}

}  // namespace dgx::llm::reference
