// GEMMs through cuBLASLt, described in row-major terms: D[m, n] = op(A) · op(B) (+ D when accumulating), with
// A stored [m, k] (or [k, m] when a_transposed) and B stored [k, n] (or [n, k] when b_transposed). cuBLASLt is
// column-major, so a row-major D is computed as the column-major Dᵀ = op(B)ᵀ · op(A)ᵀ; this file does that mapping
// once.
//
// FP8 on Hopper needs both operands K-contiguous ("TN" in cuBLAS terms): A [m, k] and B [n, k], i.e.
// a_transposed = false, b_transposed = true. A linear layer's forward GEMM is naturally in that layout; its dgrad
// needs the transposed FP8 weight and its wgrad the transposed FP8 activations and gradients, which the FP8 cast
// kernels produce alongside (fp8_cast.hpp). E4M3 × E4M3, E4M3 × E5M2 and E5M2 × E4M3 are supported; E5M2 × E5M2
// is not (cuBLASLt).
#pragma once

#include "dgx/llm/cuda/resources.hpp"

#include <cublasLt.h>

#include <cstdint>
#include <string>
#include <vector>

namespace dgx::llm::cuda {

enum class DType : std::uint8_t { bf16, fp8_e4m3, fp8_e5m2, fp32 };

[[nodiscard]] const char* to_string(DType type);
[[nodiscard]] std::size_t element_bytes(DType type);

struct GemmDesc {
  std::int64_t m = 0, n = 0, k = 0;
  DType a_type = DType::bf16, b_type = DType::bf16, d_type = DType::bf16;
  bool a_transposed = false;  ///< A stored [k, m]
  bool b_transposed = true;   ///< B stored [n, k] (the K-contiguous weight of a linear layer)
  bool accumulate = false;    ///< D += op(A)·op(B) (beta = 1): wgrad into the FP32 main gradient
  float alpha = 1.0f;         ///< D = alpha·op(A)·op(B) (+ D): LoRA's alpha / rank, applied in the GEMM
  bool fast_accum = false;    ///< FP8 only: Hopper's fast (less precise) accumulation, for forward GEMMs
  /// Row-major leading dimensions (elements between rows as stored); 0: packed.
  std::int64_t lda = 0, ldb = 0, ldd = 0;
  /// Strided batch: `batch` GEMMs of this shape, operand i at base + i · stride (elements): the experts of a MoE
  /// layer with balanced routing.
  std::int64_t batch = 1, stride_a = 0, stride_b = 0, stride_d = 0;
  /// Guaranteed alignment of every operand pointer, bytes (a power of two, at most 256).
  std::uint32_t alignment = 256;

  /// "m=8192 n=8192 k=8192 bf16·bf16->bf16", for messages.
  [[nodiscard]] std::string describe() const;
};

/// A cuBLASLt handle and the workspace its GEMMs share (32 MiB: enough for every Hopper kernel's split-K).
class BlasLt {
public:
  static constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;
  BlasLt();
  ~BlasLt();
  BlasLt(const BlasLt&) = delete;
  BlasLt& operator=(const BlasLt&) = delete;

  [[nodiscard]] cublasLtHandle_t get() const { return handle_; }
  [[nodiscard]] void* workspace() const { return workspace_.get(); }

private:
  cublasLtHandle_t handle_ = nullptr;
  DeviceBuffer workspace_;
};

/// One GEMM shape with its cuBLASLt descriptors and chosen algorithm. Construction asks the heuristic for up to
/// `candidates` algorithms; tune() times each on real operands and keeps the fastest (untimed setup work).
class Gemm {
public:
  Gemm(const BlasLt& blas, const GemmDesc& desc, int candidates = 8);
  ~Gemm();
  Gemm(const Gemm&) = delete;
  Gemm& operator=(const Gemm&) = delete;

  /// Scales are device pointers to one float each: the dequantization factors (1 / quantization scale) of FP8
  /// operands; nullptr for BF16.
  void run(const void* a, const void* b, void* d, cudaStream_t stream, const float* a_scale = nullptr,
           const float* b_scale = nullptr) const;
  /// Warms the GPU up to its boost clock (~100 ms of this GEMM), then times every candidate algorithm in
  /// interleaved rounds (`repeats` runs each per round) and keeps the one with the fastest best round. Writes D.
  void tune(const void* a, const void* b, void* d, cudaStream_t stream, const float* a_scale = nullptr,
            const float* b_scale = nullptr, int repeats = 3);

  [[nodiscard]] const GemmDesc& desc() const { return desc_; }
  [[nodiscard]] std::size_t candidates() const { return algos_.size(); }

private:
  void release() noexcept;
  void launch(const cublasLtMatmulAlgo_t& algo, const void* a, const void* b, void* d, cudaStream_t stream,
              const float* a_scale, const float* b_scale) const;
  /// Milliseconds `launches` back-to-back runs of `algo` take on `stream` (device events).
  [[nodiscard]] float time_launches(const cublasLtMatmulAlgo_t& algo, const void* a, const void* b, void* d,
                                    cudaStream_t stream, const float* a_scale, const float* b_scale,
                                    int launches) const;
  void warm_up(const cublasLtMatmulAlgo_t& algo, const void* a, const void* b, void* d, cudaStream_t stream,
               const float* a_scale, const float* b_scale) const;

  const BlasLt& blas_;
  GemmDesc desc_;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t layout_a_ = nullptr, layout_b_ = nullptr, layout_d_ = nullptr;  // cuBLAS A', B', C'=D'
  std::vector<cublasLtMatmulAlgo_t> algos_;
  std::size_t chosen_ = 0;
};

}  // namespace dgx::llm::cuda
