// Building blocks of the serving kernels: 8-element loads and stores of BF16 or FP8 E4M3 (16 or 8 bytes), and the
// paged KV cache's addressing.
#pragma once

#include "common.cuh"
#include "dgx/llm/cuda/serve_kernels.hpp"

#include <cuda_fp8.h>

namespace dgx::llm::cuda::detail {

struct alignas(8) Fp8x8 {
  __nv_fp8x2_storage_t h[4];
};

__device__ __forceinline__ void load8_fp8(const void* p, float scale, float (&v)[kVec]) {
  const Fp8x8 raw = *reinterpret_cast<const Fp8x8*>(p);
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const __half2 h = __half2(__nv_cvt_fp8x2_to_halfraw2(raw.h[i], __NV_E4M3));
    const float2 f = __half22float2(h);
    v[2 * i] = f.x * scale;
    v[2 * i + 1] = f.y * scale;
  }
}

__device__ __forceinline__ void store8_fp8(void* p, float scale, const float (&v)[kVec]) {
  Fp8x8 raw;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    raw.h[i] = __nv_cvt_float2_to_fp8x2(make_float2(v[2 * i] * scale, v[2 * i + 1] * scale), __NV_SATFINITE, __NV_E4M3);
  }
  *reinterpret_cast<Fp8x8*>(p) = raw;
}

/// 8 elements of a BF16 (FP8 = false) or FP8 E4M3 (× scale) tensor as floats.
template <bool FP8>
__device__ __forceinline__ void load8_any(const void* base, std::int64_t index, float scale, float (&v)[kVec]) {
  if constexpr (FP8) {
    load8_fp8(static_cast<const std::uint8_t*>(base) + index, scale, v);
  } else {
    load8(static_cast<const bf16*>(base) + index, v);
  }
}

/// Element index of (sequence, token, kv head, dim 0) in a paged cache.
__device__ __forceinline__ std::int64_t kv_index(const PagedKv& c, std::int64_t seq, std::int64_t token,
                                                 std::int64_t head) {
  const std::int64_t block = c.block_table[seq * c.max_blocks + token / c.block_tokens];
  return ((block * c.block_tokens + token % c.block_tokens) * c.kv_heads + head) * c.head_dim;
}

}  // namespace dgx::llm::cuda::detail
