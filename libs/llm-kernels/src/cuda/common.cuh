// Building blocks of the memory-bound kernels: 16-byte BF16 vectors, warp and block reductions, launch sizes.
#pragma once

#include "dgx/llm/cuda/check.hpp"
#include "dgx/llm/cuda/kernels.hpp"

#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>

namespace dgx::llm::cuda::detail {

inline constexpr int kVec = 8;  // BF16 elements per 16-byte load

struct alignas(16) Bf16x8 {
  __nv_bfloat162 h[4];
};

__device__ __forceinline__ void load8(const bf16* p, float (&v)[kVec]) {
  const Bf16x8 raw = *reinterpret_cast<const Bf16x8*>(p);
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 f = __bfloat1622float2(raw.h[i]);
    v[2 * i] = f.x;
    v[2 * i + 1] = f.y;
  }
}

__device__ __forceinline__ void store8(bf16* p, const float (&v)[kVec]) {
  Bf16x8 raw;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    raw.h[i] = __floats2bfloat162_rn(v[2 * i], v[2 * i + 1]);
  }
  *reinterpret_cast<Bf16x8*>(p) = raw;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  }
  return v;
}

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  }
  return v;
}

/// Sum over the block; every thread gets the result. `shared` holds 32 floats; blockDim.x a multiple of 32.
__device__ __forceinline__ float block_sum(float v, float* shared) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  v = warp_sum(v);
  __syncthreads();  // shared may still be read by a previous reduction
  if (lane == 0) {
    shared[warp] = v;
  }
  __syncthreads();
  v = lane < warps ? shared[lane] : 0.0f;
  return warp_sum(v);
}

__device__ __forceinline__ float block_max(float v, float* shared) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  v = warp_max(v);
  __syncthreads();
  if (lane == 0) {
    shared[warp] = v;
  }
  __syncthreads();
  v = lane < warps ? shared[lane] : -INFINITY;
  return warp_max(v);
}

/// Atomic max of a non-negative float: non-negative IEEE floats order like their bit patterns as integers.
__device__ __forceinline__ void atomic_max_nonnegative(float* address, float value) {
  atomicMax(reinterpret_cast<int*>(address), __float_as_int(value));
}

/// Blocks for a grid-stride loop over `work` items: enough to fill the device, never more than needed.
inline unsigned grid_for(std::int64_t work, int threads) {
  const std::int64_t blocks = (work + threads - 1) / threads;
  return static_cast<unsigned>(std::clamp<std::int64_t>(blocks, 1, 65535LL * 16));
}

/// Streaming multiprocessors of the current device (cached per device).
int sm_count();

}  // namespace dgx::llm::cuda::detail
