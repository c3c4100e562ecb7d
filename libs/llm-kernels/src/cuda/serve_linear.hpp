// One linear layer of a serving iteration (y = x Wᵀ, W [out, in]): its weights in the GEMM precision only (no
// gradients, no master copy; FP8 E4M3 with one scale), and how its GEMM runs at one row count — cuBLASLt (rows
// padded to 16, as its FP8 kernels need) or, for at most 8 rows, our GEMV — whichever the setup timed faster.
// Inputs are BF16, or FP8 E4M3 with a static scale of 1 (the fused norm and activation write them so).
#pragma once

#include "dgx/llm/cuda/blas.hpp"
#include "dgx/llm/cuda/kernels.hpp"
#include "dgx/llm/cuda/resources.hpp"
#include "dgx/llm/kernels/layer_spec.hpp"
#include "dgx/llm/kernels/op_timing.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace dgx::llm::cuda::detail {

/// Rows of an activation buffer: a multiple of 16 (cuBLASLt's FP8 GEMMs).
[[nodiscard]] inline std::int64_t padded_rows(std::int64_t rows) { return (rows + 15) / 16 * 16; }

struct ServeWeights {
  std::int64_t in = 0, out = 0;
  kernels::Precision precision = kernels::Precision::bf16;
  DeviceBuffer data;       ///< [out, in], BF16 or FP8 E4M3
  DeviceBuffer scale_inv;  ///< one float on the device: what the GEMM multiplies by (1 for BF16)
  float host_scale_inv = 1.0f;

  [[nodiscard]] std::size_t bytes() const { return data.bytes(); }
};

/// Uniform random weights in ±1/sqrt(in) from `seed`, stored in the precision (FP8: scaled to E4M3's range).
[[nodiscard]] ServeWeights make_serve_weights(std::int64_t in, std::int64_t out, kernels::Precision precision,
                                              std::uint64_t seed, cudaStream_t stream);

class ServeGemm {
public:
  ServeGemm(const BlasLt& blas, std::int64_t rows, std::int64_t in, std::int64_t out, kernels::Precision precision,
            int candidates);
  ~ServeGemm();
  ServeGemm(const ServeGemm&) = delete;
  ServeGemm& operator=(const ServeGemm&) = delete;

  /// Times cuBLASLt's candidates and the GEMV on these operands and keeps the fastest (untimed setup). `x` and `y`
  /// hold padded_rows(rows) rows.
  void tune(const void* x, const ServeWeights& w, bf16* y, cudaStream_t stream);
  void run(const void* x, const ServeWeights& w, bf16* y, cudaStream_t stream) const;

  /// The op as a measurement names it: `name`, forward, the precision, m = rows (not padded), n = out, k = in.
  [[nodiscard]] kernels::OpTiming op(std::string name) const;
  [[nodiscard]] bool uses_gemv() const { return use_gemv_; }

private:
  std::int64_t rows_, in_, out_;
  kernels::Precision precision_;
  std::unique_ptr<Gemm> gemm_;  ///< null when cuBLASLt has no kernel for the shape
  DeviceBuffer one_;            ///< the activations' scale_inv (static scaling: 1)
  bool use_gemv_ = false;
};

}  // namespace dgx::llm::cuda::detail
