// A small-M GEMM for decoding: y[m, n] = x[m, k] · W[n, k]ᵀ · scale, m ≤ 8. One warp per output column streams that
// weight row once (8 elements per lane per load, four loads in flight, bypassing L1) and multiplies it with every row
// of x (which the CTA's warps share through L1). What cuBLASLt's tiled kernels waste on padding at m = 1 it spends on
// nothing: the op runs at the speed of reading the weights.
#include "serve_common.cuh"

namespace dgx::llm::cuda {

namespace {

constexpr int kWarps = 8;
constexpr int kUnroll = 4;

/// 8 weights, streamed (no L1 allocation: each is read once).
template <bool FP8>
__device__ __forceinline__ void load_weights(const void* w, std::int64_t index, float (&v)[detail::kVec]) {
  if constexpr (FP8) {
    const uint2 raw = __ldcs(reinterpret_cast<const uint2*>(static_cast<const std::uint8_t*>(w) + index));
    detail::load8_fp8(&raw, 1.0f, v);
  } else {
    const uint4 raw = __ldcs(reinterpret_cast<const uint4*>(static_cast<const bf16*>(w) + index));
    detail::load8(reinterpret_cast<const bf16*>(&raw), v);
  }
}

template <bool FP8, int M>
__global__ void __launch_bounds__(kWarps * 32)
    gemv_kernel(const void* __restrict__ x, const void* __restrict__ w, bf16* __restrict__ y, std::int64_t n,
                std::int64_t k, float scale) {
  const int lane = threadIdx.x % 32;
  const std::int64_t col = std::int64_t(blockIdx.x) * kWarps + threadIdx.x / 32;
  if (col >= n) {
    return;  // whole warps leave together
  }
  float acc[M] = {};
  const std::int64_t row = col * k;
  constexpr std::int64_t step = 32 * detail::kVec;
  for (std::int64_t c0 = std::int64_t(lane) * detail::kVec; c0 < k; c0 += step * kUnroll) {
    float wv[kUnroll][detail::kVec];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::int64_t c = c0 + u * step;
      if (c < k) {
        load_weights<FP8>(w, row + c, wv[u]);
      } else {
#pragma unroll
        for (int i = 0; i < detail::kVec; ++i) {
          wv[u][i] = 0.0f;
        }
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::int64_t c = c0 + u * step;
      if (c >= k) {
        continue;
      }
#pragma unroll
      for (int r = 0; r < M; ++r) {
        float xv[detail::kVec];
        detail::load8_any<FP8>(x, r * k + c, 1.0f, xv);
#pragma unroll
        for (int i = 0; i < detail::kVec; ++i) {
          acc[r] += xv[i] * wv[u][i];
        }
      }
    }
  }
#pragma unroll
  for (int r = 0; r < M; ++r) {
    const float sum = detail::warp_sum(acc[r]);
    if (lane == 0) {
      y[r * n + col] = __float2bfloat16(sum * scale);
    }
  }
}

template <bool FP8, int M>
void launch(const void* x, const void* w, bf16* y, std::int64_t n, std::int64_t k, float scale, cudaStream_t stream) {
  const unsigned blocks = static_cast<unsigned>((n + kWarps - 1) / kWarps);
  gemv_kernel<FP8, M><<<blocks, kWarps * 32, 0, stream>>>(x, w, y, n, k, scale);
  DGX_CUDA_CHECK_LAUNCH();
}

template <bool FP8>
void dispatch(const void* x, const void* w, bf16* y, std::int64_t m, std::int64_t n, std::int64_t k, float scale,
              cudaStream_t stream) {
  switch (m) {
  case 1: launch<FP8, 1>(x, w, y, n, k, scale, stream); break;
  case 2: launch<FP8, 2>(x, w, y, n, k, scale, stream); break;
  case 3: launch<FP8, 3>(x, w, y, n, k, scale, stream); break;
  case 4: launch<FP8, 4>(x, w, y, n, k, scale, stream); break;
  case 5: launch<FP8, 5>(x, w, y, n, k, scale, stream); break;
  case 6: launch<FP8, 6>(x, w, y, n, k, scale, stream); break;
  case 7: launch<FP8, 7>(x, w, y, n, k, scale, stream); break;
  default: launch<FP8, 8>(x, w, y, n, k, scale, stream); break;
  }
}

}  // namespace

void gemv(const void* x, const void* w, bf16* y, std::int64_t m, std::int64_t n, std::int64_t k, bool fp8, float scale,
          cudaStream_t stream) {
  if (m < 1 || m > kGemvMaxRows) {
    throw Error(Error::Kind::unsupported,
                "gemv: m must be 1.." + std::to_string(kGemvMaxRows) + ", got " + std::to_string(m));
  }
  if (k % detail::kVec != 0) {
    throw Error(Error::Kind::unsupported, "gemv: k must be a multiple of 8, got " + std::to_string(k));
  }
  if (n == 0) {
    return;
  }
  if (fp8) {
    dispatch<true>(x, w, y, m, n, k, scale, stream);
  } else {
    dispatch<false>(x, w, y, m, n, k, scale, stream);
  }
}

}  // namespace dgx::llm::cuda
