// The gemm workload's sweep: shapes × precisions, parsed and validated without CUDA so that configuration errors
// are reported (and tested) on any machine.
#pragma once

#include "dgx/llm/kernels/layer_spec.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dgx::llm::kernels {

/// D[m, n] = A[m, k] · B[n, k]ᵀ: both operands K-contiguous ("TN" in cuBLAS's column-major terms), the layout
/// Hopper's FP8 tensor cores require, and the layout of a linear layer's forward GEMM.
struct GemmCase {
  std::int64_t m = 0, n = 0, k = 0;
  Precision precision = Precision::bf16;

  [[nodiscard]] double flops() const { return 2.0 * double(m) * double(n) * double(k); }
  /// Bytes of A, B and D when each is touched once (BF16 output).
  [[nodiscard]] double bytes() const;
  /// "8192x8192x8192 bf16"
  [[nodiscard]] std::string label() const;
};

/// Largest dimension accepted; keeps a typo from asking for terabytes.
inline constexpr std::int64_t kMaxGemmDim = std::int64_t{1} << 20;

/// Parses "MxNxK" (x or X, positive integers up to kMaxGemmDim). Throws std::invalid_argument naming the text.
[[nodiscard]] GemmCase parse_gemm_shape(std::string_view text);

/// Every shape with every precision, shapes outermost. Throws std::invalid_argument for an empty list, a
/// malformed shape, an unknown precision ("bf16", "fp8") or an FP8 shape whose m, n or k is not a multiple of 16
/// (cuBLASLt's FP8 requirement).
[[nodiscard]] std::vector<GemmCase> gemm_sweep(const std::vector<std::string>& shapes,
                                               const std::vector<std::string>& precisions);

}  // namespace dgx::llm::kernels
