// A dense row-major matrix of doubles and the three GEMM layouts a linear layer needs: the CPU reference the
// CUDA kernels are checked against. Written for clarity, not speed; meant for tiny shapes.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace dgx::llm::reference {

struct Matrix {
  std::int64_t rows = 0, cols = 0;
  std::vector<double> v;

  Matrix() = default;
  Matrix(std::int64_t r, std::int64_t c) : rows(r), cols(c), v(static_cast<std::size_t>(r * c), 0.0) {}

  [[nodiscard]] double& at(std::int64_t r, std::int64_t c) { return v[static_cast<std::size_t>(r * cols + c)]; }
  [[nodiscard]] double at(std::int64_t r, std::int64_t c) const { return v[static_cast<std::size_t>(r * cols + c)]; }
  [[nodiscard]] std::int64_t size() const { return rows * cols; }
};

/// a[m, k] · b[n, k]ᵀ: the forward GEMM of a linear layer (y = x Wᵀ).
[[nodiscard]] Matrix matmul_nt(const Matrix& a, const Matrix& b);
/// a[m, k] · b[k, n]: the dgrad GEMM (dx = dy W).
[[nodiscard]] Matrix matmul_nn(const Matrix& a, const Matrix& b);
/// a[k, m]ᵀ · b[k, n]: the wgrad GEMM (dW = dyᵀ x).
[[nodiscard]] Matrix matmul_tn(const Matrix& a, const Matrix& b);

void add_into(Matrix& target, const Matrix& other);  ///< target += other (same shape)
[[nodiscard]] Matrix add(const Matrix& a, const Matrix& b);

/// Uniform values in [-scale, scale].
[[nodiscard]] Matrix random_matrix(std::int64_t rows, std::int64_t cols, double scale, std::mt19937_64& rng);

/// Round to the nearest BF16 (round to nearest even), as the CUDA kernels store their outputs.
[[nodiscard]] double round_bf16(double x);
/// Round to the nearest FP8 value, saturating at the format's largest finite value: E4M3 (448) or E5M2 (57344).
[[nodiscard]] double round_fp8(double x, bool e5m2);
void round_bf16(Matrix& m);

/// The value of a stored BF16 (its 16 bits) and of a stored FP8 byte (E4M3 or E5M2).
[[nodiscard]] double decode_bf16(std::uint16_t bits);
[[nodiscard]] double decode_fp8(std::uint8_t bits, bool e5m2);

/// ‖a − b‖₂ / ‖b‖₂ (0 when both are zero): the error metric of the GPU comparisons.
[[nodiscard]] double relative_l2(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace dgx::llm::reference
