// FP8 casts with per-tensor scaling: the amax reduction of current scaling, the fused cast + transpose that
// writes the K-contiguous operands of the forward, dgrad and wgrad GEMMs in one read of the BF16 tensor, and the
// delayed-scaling update at the end of a step.
#include "common.cuh"
#include "dgx/llm/cuda/fp8.hpp"

#include <cuda_fp8.h>

namespace dgx::llm::cuda {

namespace {

constexpr int kThreads = 256;
constexpr int kTile = 64;  // a 64×64 tile per block: 8 column vectors × 32 rows of threads, two row passes

__device__ __forceinline__ float scale_for(float amax, float max_finite) {
  return (amax > 0.0f && isfinite(amax)) ? max_finite / amax : 1.0f;
}

template <bool kE5M2> __device__ __forceinline__ std::uint8_t quantize(float x) {
  return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, kE5M2 ? __NV_E5M2 : __NV_E4M3);
}

__device__ __forceinline__ void finish_amax(float amax, float* target) {
  __shared__ float shared[32];
  amax = detail::block_max(amax, shared);
  if (threadIdx.x == 0) {
    detail::atomic_max_nonnegative(target, amax);
  }
}

__global__ void amax_kernel(const bf16* __restrict__ x, std::int64_t n, Fp8Scale* scale) {
  float amax = 0.0f;
  const std::int64_t vectors = n / detail::kVec;
  for (std::int64_t v = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; v < vectors;
       v += std::int64_t(gridDim.x) * blockDim.x) {
    float values[detail::kVec];
    detail::load8(x + v * detail::kVec, values);
#pragma unroll
    for (int e = 0; e < detail::kVec; ++e) {
      amax = fmaxf(amax, fabsf(values[e]));
    }
  }
  for (std::int64_t i = vectors * detail::kVec + blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    amax = fmaxf(amax, fabsf(__bfloat162float(x[i])));
  }
  finish_amax(amax, &scale->amax);
}

template <bool kE5M2>
__global__ void cast_transpose_kernel(const bf16* __restrict__ x, std::int64_t rows, std::int64_t cols,
                                      std::uint8_t* __restrict__ out, std::uint8_t* __restrict__ out_t,
                                      Fp8Scale* scale_state, bool current) {
  __shared__ std::uint8_t tile[kTile][kTile + 8];
  const float scale = current ? scale_for(scale_state->amax, scale_state->max_finite) : scale_state->scale;
  if (current && blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0) {
    scale_state->scale = scale;  // other blocks read amax, not scale: no race
    scale_state->scale_inv = 1.0f / scale;
  }
  const std::int64_t r0 = std::int64_t(blockIdx.y) * kTile, c0 = std::int64_t(blockIdx.x) * kTile;
  const int tx = threadIdx.x % 8, ty = threadIdx.x / 8;
  const bool vector_rows = cols % detail::kVec == 0;
  float amax = 0.0f;
#pragma unroll
  for (int pass = 0; pass < 2; ++pass) {
    const int r = ty + 32 * pass;
    const std::int64_t gr = r0 + r, gc = c0 + tx * detail::kVec;
    float v[detail::kVec] = {};
    const bool full = gr < rows && gc + detail::kVec <= cols;
    if (full && vector_rows) {
      detail::load8(x + gr * cols + gc, v);
    } else if (gr < rows) {
#pragma unroll
      for (int e = 0; e < detail::kVec; ++e) {
        if (gc + e < cols) {
          v[e] = __bfloat162float(x[gr * cols + gc + e]);
        }
      }
    }
    alignas(8) std::uint8_t q[detail::kVec];  // stored below as one uint2
#pragma unroll
    for (int e = 0; e < detail::kVec; ++e) {
      amax = fmaxf(amax, fabsf(v[e]));
      q[e] = quantize<kE5M2>(v[e] * scale);
      tile[r][tx * detail::kVec + e] = q[e];
    }
    if (out != nullptr && gr < rows) {
      if (full && vector_rows) {
        *reinterpret_cast<uint2*>(out + gr * cols + gc) = *reinterpret_cast<const uint2*>(q);
      } else {
#pragma unroll
        for (int e = 0; e < detail::kVec; ++e) {
          if (gc + e < cols) {
            out[gr * cols + gc + e] = q[e];
          }
        }
      }
    }
  }
  if (out_t != nullptr) {
    __syncthreads();
    const bool vector_cols = rows % detail::kVec == 0;
#pragma unroll
    for (int pass = 0; pass < 2; ++pass) {
      const int c = ty + 32 * pass;
      const std::int64_t gc = c0 + c, gr = r0 + tx * detail::kVec;
      if (gc >= cols) {
        continue;
      }
      alignas(8) std::uint8_t q[detail::kVec];
#pragma unroll
      for (int e = 0; e < detail::kVec; ++e) {
        q[e] = tile[tx * detail::kVec + e][c];
      }
      if (gr + detail::kVec <= rows && vector_cols) {
        *reinterpret_cast<uint2*>(out_t + gc * rows + gr) = *reinterpret_cast<const uint2*>(q);
      } else {
#pragma unroll
        for (int e = 0; e < detail::kVec; ++e) {
          if (gr + e < rows) {
            out_t[gc * rows + gr + e] = q[e];
          }
        }
      }
    }
  }
  if (!current) {
    finish_amax(amax, &scale_state->amax);
  }
}

__global__ void init_scales_kernel(Fp8Scale* scales, int count, std::uint64_t e5m2_mask, int history_len) {
  const int i = blockIdx.x;
  if (i >= count) {
    return;
  }
  Fp8Scale& s = scales[i];
  for (int h = threadIdx.x; h < kMaxAmaxHistory; h += blockDim.x) {
    s.history[h] = 0.0f;
  }
  if (threadIdx.x == 0) {
    s.scale = 1.0f;
    s.scale_inv = 1.0f;
    s.amax = 0.0f;
    s.max_finite = ((e5m2_mask >> i) & 1u) ? 57344.0f : 448.0f;
    s.history_len = history_len;
    s.position = 0;
  }
}

__global__ void update_scales_kernel(Fp8Scale* scales) {
  __shared__ float shared[32];
  Fp8Scale& s = scales[blockIdx.x];
  if (threadIdx.x == 0) {
    s.history[s.position] = s.amax;
  }
  __syncthreads();
  float m = 0.0f;
  for (int h = threadIdx.x; h < s.history_len; h += blockDim.x) {
    m = fmaxf(m, s.history[h]);
  }
  m = detail::block_max(m, shared);
  if (threadIdx.x == 0) {
    s.position = (s.position + 1) % s.history_len;
    s.amax = 0.0f;
    if (m > 0.0f && isfinite(m)) {
      s.scale = s.max_finite / m;
      s.scale_inv = 1.0f / s.scale;
    }
  }
}

}  // namespace

void fp8_init_scales(Fp8Scale* scales, int count, std::uint64_t e5m2_mask, int history_len, cudaStream_t stream) {
  if (count < 0 || count > 64) {
    throw Error(Error::Kind::runtime, "fp8_init_scales: at most 64 scales");
  }
  if (history_len < 1 || history_len > kMaxAmaxHistory) {
    throw Error(Error::Kind::runtime,
                "fp8: the amax history must hold 1.." + std::to_string(kMaxAmaxHistory) + " steps");
  }
  if (count == 0) {
    return;
  }
  init_scales_kernel<<<count, kThreads, 0, stream>>>(scales, count, e5m2_mask, history_len);
  DGX_CUDA_CHECK_LAUNCH();
}

void fp8_amax(const bf16* x, std::int64_t n, Fp8Scale* scale, cudaStream_t stream) {
  DGX_CUDA_CHECK(cudaMemsetAsync(amax_of(scale), 0, sizeof(float), stream));
  if (n == 0) {
    return;
  }
  const unsigned blocks = std::min<unsigned>(detail::grid_for(n / detail::kVec + 1, kThreads),
                                             static_cast<unsigned>(4 * detail::sm_count()));
  amax_kernel<<<blocks, kThreads, 0, stream>>>(x, n, scale);
  DGX_CUDA_CHECK_LAUNCH();
}

void fp8_cast_transpose(const bf16* x, std::int64_t rows, std::int64_t cols, void* out, void* out_t, bool e5m2,
                        Fp8Scale* scale, bool current, cudaStream_t stream) {
  if (rows * cols == 0) {
    return;
  }
  const dim3 grid(static_cast<unsigned>((cols + kTile - 1) / kTile), static_cast<unsigned>((rows + kTile - 1) / kTile));
  if (grid.y > 65535) {
    throw Error(Error::Kind::unsupported, "fp8_cast_transpose: too many rows");
  }
  auto* o = static_cast<std::uint8_t*>(out);
  auto* ot = static_cast<std::uint8_t*>(out_t);
  if (e5m2) {
    cast_transpose_kernel<true><<<grid, kThreads, 0, stream>>>(x, rows, cols, o, ot, scale, current);
  } else {
    cast_transpose_kernel<false><<<grid, kThreads, 0, stream>>>(x, rows, cols, o, ot, scale, current);
  }
  DGX_CUDA_CHECK_LAUNCH();
}

void fp8_update_scales(Fp8Scale* scales, int count, cudaStream_t stream) {
  if (count == 0) {
    return;
  }
  update_scales_kernel<<<count, kThreads, 0, stream>>>(scales);
  DGX_CUDA_CHECK_LAUNCH();
}

}  // namespace dgx::llm::cuda
