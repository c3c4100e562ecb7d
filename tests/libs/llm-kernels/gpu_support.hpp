// Support of the GPU tests (label gpu): the visible skip without a device, host <-> device copies, and the error
// metric with its documented tolerances.
//
// Tolerances (relative L2 error ‖gpu − reference‖ / ‖reference‖, the reference in FP64 from the same BF16-rounded
// inputs):
//   BF16 ops                 1e-2   (BF16 outputs: 2^-9 rounding; FP32 accumulation)
//   BF16 layer output        1e-2
//   BF16 layer gradients     2e-2   (a chain of BF16-rounded intermediates)
//   FP8 GEMMs                6e-2   (E4M3 inputs: 3 mantissa bits; E5M2 gradients: 2)
//   FP8 GEMM, FP32 output,   1e-3   (Hopper's FP8 MMA accumulates in FP22, 13 mantissa bits truncated, until
//     vs its FP8 inputs              cuBLASLt promotes to FP32: ~2e-4 modelled at k = 128)
//   FP8 layer output         8e-2
//   FP8 layer gradients      2e-1   (two FP8 GEMMs, E5M2 gradients, per-tensor delayed scaling)
#pragma once

#include <doctest/doctest.h>

#include "dgx/llm/cuda/check.hpp"
#include "dgx/llm/cuda/device.hpp"
#include "dgx/llm/cuda/resources.hpp"
#include "dgx/llm/reference/matrix.hpp"

#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

namespace dgx::llm::testing {

inline constexpr double kBf16Tolerance = 1e-2;
inline constexpr double kBf16LayerGradTolerance = 2e-2;
inline constexpr double kFp8GemmTolerance = 6e-2;
inline constexpr double kFp8AccumulationTolerance = 1e-3;
inline constexpr double kFp8LayerOutputTolerance = 8e-2;
inline constexpr double kFp8LayerGradTolerance = 2e-1;

/// False (after printing why) when there is no CUDA device: the test returns and passes, visibly skipped.
inline bool have_gpu() {
  const auto reason = cuda::no_device_reason();
  if (!reason) {
    return true;
  }
  std::printf("SKIPPED: no CUDA device (%s)\n", reason->c_str());
  return false;
}

/// Uniform values in [-scale, scale], rounded to BF16 so host and device see the same numbers.
inline std::vector<double> random_bf16(std::size_t n, double scale, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uniform(-scale, scale);
  std::vector<double> v(n);
  for (double& x : v) {
    x = reference::round_bf16(uniform(rng));
  }
  return v;
}

inline std::vector<std::uint16_t> to_bf16_bits(const std::vector<double>& v) {
  std::vector<std::uint16_t> bits(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const float f = static_cast<float>(reference::round_bf16(v[i]));
    std::uint32_t wide = 0;
    std::memcpy(&wide, &f, sizeof wide);
    bits[i] = static_cast<std::uint16_t>(wide >> 16);
  }
  return bits;
}

/// A device copy of host values as BF16 (or FP32), landed when it returns: a cudaMemcpy from pageable memory may
/// return before its DMA lands on the legacy stream, which work on a non-blocking stream (cuda::Stream) does not
/// wait for.
inline cuda::DeviceBuffer upload_bf16(const std::vector<double>& v) {
  const std::vector<std::uint16_t> bits = to_bf16_bits(v);
  cuda::DeviceBuffer buffer(bits.size() * 2);
  DGX_CUDA_CHECK(cudaMemcpy(buffer.get(), bits.data(), bits.size() * 2, cudaMemcpyHostToDevice));
  DGX_CUDA_CHECK(cudaDeviceSynchronize());
  return buffer;
}
inline cuda::DeviceBuffer upload_f32(const std::vector<double>& v) {
  const std::vector<float> f(v.begin(), v.end());
  cuda::DeviceBuffer buffer(f.size() * 4);
  DGX_CUDA_CHECK(cudaMemcpy(buffer.get(), f.data(), f.size() * 4, cudaMemcpyHostToDevice));
  DGX_CUDA_CHECK(cudaDeviceSynchronize());
  return buffer;
}
inline std::vector<double> download_bf16(const cuda::DeviceBuffer& buffer, std::size_t n) {
  DGX_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint16_t> bits(n);
  DGX_CUDA_CHECK(cudaMemcpy(bits.data(), buffer.get(), n * 2, cudaMemcpyDeviceToHost));
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = reference::decode_bf16(bits[i]);
  }
  return v;
}
inline std::vector<double> download_f32(const cuda::DeviceBuffer& buffer, std::size_t n) {
  DGX_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> f(n);
  DGX_CUDA_CHECK(cudaMemcpy(f.data(), buffer.get(), n * 4, cudaMemcpyDeviceToHost));
  return {f.begin(), f.end()};
}
inline std::vector<double> download_fp8(const cuda::DeviceBuffer& buffer, std::size_t n, bool e5m2, double scale_inv) {
  DGX_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint8_t> bytes(n);
  DGX_CUDA_CHECK(cudaMemcpy(bytes.data(), buffer.get(), n, cudaMemcpyDeviceToHost));
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = reference::decode_fp8(bytes[i], e5m2) * scale_inv;
  }
  return v;
}

inline reference::Matrix as_matrix(std::vector<double> v, std::int64_t rows, std::int64_t cols) {
  reference::Matrix m;
  m.rows = rows;
  m.cols = cols;
  m.v = std::move(v);
  return m;
}

/// CHECKs the relative L2 error of `gpu` against `expected`, printing it either way.
inline void check_close(const char* what, const std::vector<double>& gpu, const std::vector<double>& expected,
                        double tolerance) {
  REQUIRE(gpu.size() == expected.size());
  const double error = reference::relative_l2(gpu, expected);
  std::printf("  %-28s relative L2 error %.3e (tolerance %.1e)\n", what, error, tolerance);
  INFO(what << ": relative L2 error " << error << " > " << tolerance);
  CHECK(error <= tolerance);
}

}  // namespace dgx::llm::testing
