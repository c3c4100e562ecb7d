#include "dgx/llm/reference/ops.hpp"

#include <cmath>

namespace dgx::llm::reference {

namespace {

constexpr double kGeluC = 0.7978845608028654;  // sqrt(2 / pi)
constexpr double kGeluA = 0.044715;

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double silu(double x) { return x * sigmoid(x); }
double silu_grad(double x) {
  const double s = sigmoid(x);
  return s * (1.0 + x * (1.0 - s));
}
double gelu(double x) { return 0.5 * x * (1.0 + std::tanh(kGeluC * (x + kGeluA * x * x * x))); }
double gelu_grad(double x) {
  const double t = std::tanh(kGeluC * (x + kGeluA * x * x * x));
  return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * kGeluC * (1.0 + 3.0 * kGeluA * x * x);
}

}  // namespace

Matrix activation_forward(Activation activation, const Matrix& in) {
  if (activation == Activation::swiglu) {
    const std::int64_t f = in.cols / 2;
    Matrix out(in.rows, f);
    for (std::int64_t i = 0; i < in.rows; ++i) {
      for (std::int64_t j = 0; j < f; ++j) {
        out.at(i, j) = silu(in.at(i, j)) * in.at(i, j + f);
      }
    }
    return out;
  }
  Matrix out(in.rows, in.cols);
  for (std::size_t i = 0; i < in.v.size(); ++i) {
    const double x = in.v[i];
    out.v[i] = activation == Activation::gelu ? gelu(x) : (x > 0 ? x * x : 0.0);
  }
  return out;
}

Matrix activation_backward(Activation activation, const Matrix& in, const Matrix& dout) {
  Matrix din(in.rows, in.cols);
  if (activation == Activation::swiglu) {
    const std::int64_t f = in.cols / 2;
    for (std::int64_t i = 0; i < in.rows; ++i) {
      for (std::int64_t j = 0; j < f; ++j) {
        const double gate = in.at(i, j), up = in.at(i, j + f), d = dout.at(i, j);
        din.at(i, j) = d * up * silu_grad(gate);
        din.at(i, j + f) = d * silu(gate);
      }
    }
    return din;
  }
  for (std::size_t i = 0; i < in.v.size(); ++i) {
    const double x = in.v[i];
    din.v[i] = dout.v[i] * (activation == Activation::gelu ? gelu_grad(x) : (x > 0 ? 2 * x : 0.0));
  }
  return din;
}

}  // namespace dgx::llm::reference
