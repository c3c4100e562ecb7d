// Elementwise kernels: residual add, fills with reproducible random values, conversions, and the MoE row
// gathers/sums of balanced routing.
#include "common.cuh"

#include <array>

namespace dgx::llm::cuda {

namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// Uniform in [-1, 1) from 24 bits of the hash of (seed, index).
__device__ __forceinline__ float uniform(std::uint64_t seed, std::int64_t index) {
  const std::uint64_t h = splitmix64(seed ^ splitmix64(static_cast<std::uint64_t>(index)));
  return float(h >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

#define DGX_GRID_STRIDE(i, n)                                                                                          \
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < (n);                                  \
       i += std::int64_t(gridDim.x) * blockDim.x)

__global__ void add_kernel(const bf16* __restrict__ a, const bf16* __restrict__ b, bf16* __restrict__ out,
                           std::int64_t n) {
  const std::int64_t vectors = n / detail::kVec;
  DGX_GRID_STRIDE(v, vectors) {
    float x[detail::kVec], y[detail::kVec];
    detail::load8(a + v * detail::kVec, x);
    detail::load8(b + v * detail::kVec, y);
#pragma unroll
    for (int e = 0; e < detail::kVec; ++e) {
      x[e] += y[e];
    }
    detail::store8(out + v * detail::kVec, x);
  }
  DGX_GRID_STRIDE(i, n - vectors * detail::kVec) {
    const std::int64_t j = vectors * detail::kVec + i;
    out[j] = __float2bfloat16(__bfloat162float(a[j]) + __bfloat162float(b[j]));
  }
}

template <typename T>
__global__ void fill_uniform_kernel(T* data, std::int64_t n, std::uint64_t seed, float scale, float offset) {
  DGX_GRID_STRIDE(i, n) {
    if constexpr (sizeof(T) == 2) {
      data[i] = __float2bfloat16(offset + scale * uniform(seed, i));
    } else {
      data[i] = offset + scale * uniform(seed, i);
    }
  }
}

__global__ void fill_indices_kernel(std::int32_t* data, std::int64_t n, std::uint64_t seed, std::int32_t limit) {
  DGX_GRID_STRIDE(i, n) {
    const std::uint64_t h = splitmix64(seed ^ splitmix64(static_cast<std::uint64_t>(i)));
    data[i] = static_cast<std::int32_t>(h % static_cast<std::uint64_t>(limit));
  }
}

__global__ void to_bf16_kernel(const float* in, bf16* out, std::int64_t n) {
  DGX_GRID_STRIDE(i, n) out[i] = __float2bfloat16(in[i]);
}

__global__ void to_float_kernel(const bf16* in, float* out, std::int64_t n) {
  DGX_GRID_STRIDE(i, n) out[i] = __bfloat162float(in[i]);
}

__global__ void gather_rows_kernel(const bf16* __restrict__ in, std::int64_t tokens, std::int64_t cols,
                                   bf16* __restrict__ out, std::int64_t routed_rows, float scale) {
  const std::int64_t per_row = cols / detail::kVec;
  DGX_GRID_STRIDE(v, routed_rows * per_row) {
    const std::int64_t r = v / per_row, j = (v % per_row) * detail::kVec;
    float x[detail::kVec];
    detail::load8(in + (r % tokens) * cols + j, x);
#pragma unroll
    for (int e = 0; e < detail::kVec; ++e) {
      x[e] *= scale;
    }
    detail::store8(out + r * cols + j, x);
  }
}

__global__ void sum_rows_kernel(const bf16* __restrict__ in, std::int64_t tokens, std::int64_t cols,
                                std::int64_t copies, float scale, bf16* __restrict__ out) {
  const std::int64_t per_row = cols / detail::kVec;
  DGX_GRID_STRIDE(v, tokens * per_row) {
    const std::int64_t t = v / per_row, j = (v % per_row) * detail::kVec;
    float sum[detail::kVec] = {}, x[detail::kVec];
    for (std::int64_t c = 0; c < copies; ++c) {
      detail::load8(in + (c * tokens + t) * cols + j, x);
#pragma unroll
      for (int e = 0; e < detail::kVec; ++e) {
        sum[e] += x[e];
      }
    }
#pragma unroll
    for (int e = 0; e < detail::kVec; ++e) {
      sum[e] *= scale;
    }
    detail::store8(out + t * cols + j, sum);
  }
}

void check_rows(std::int64_t cols, const char* what) {
  if (cols % detail::kVec != 0) {
    throw Error(Error::Kind::unsupported,
                std::string(what) + ": the row length (" + std::to_string(cols) + ") must be a multiple of 8");
  }
}

}  // namespace

namespace detail {

int sm_count() {
  static std::array<int, 64> cache{};  // per device ordinal; a benign race writes the same value
  int device = 0;
  DGX_CUDA_CHECK(cudaGetDevice(&device));
  if (device < 0 || device >= static_cast<int>(cache.size())) {
    device = 0;
  }
  if (cache[std::size_t(device)] == 0) {
    int count = 0;
    DGX_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
    cache[std::size_t(device)] = count;
  }
  return cache[std::size_t(device)];
}

}  // namespace detail

void add(const bf16* a, const bf16* b, bf16* out, std::int64_t n, cudaStream_t stream) {
  if (n == 0) {
    return;
  }
  add_kernel<<<detail::grid_for(std::max<std::int64_t>(n / detail::kVec, 1), kThreads), kThreads, 0, stream>>>(a, b,
                                                                                                               out, n);
  DGX_CUDA_CHECK_LAUNCH();
}

void fill_uniform(bf16* data, std::int64_t n, std::uint64_t seed, float scale, cudaStream_t stream, float offset) {
  if (n == 0) {
    return;
  }
  fill_uniform_kernel<<<detail::grid_for(n, kThreads), kThreads, 0, stream>>>(data, n, seed, scale, offset);
  DGX_CUDA_CHECK_LAUNCH();
}

void fill_uniform(float* data, std::int64_t n, std::uint64_t seed, float scale, cudaStream_t stream, float offset) {
  if (n == 0) {
    return;
  }
  fill_uniform_kernel<<<detail::grid_for(n, kThreads), kThreads, 0, stream>>>(data, n, seed, scale, offset);
  DGX_CUDA_CHECK_LAUNCH();
}

void fill_indices(std::int32_t* data, std::int64_t n, std::uint64_t seed, std::int32_t limit, cudaStream_t stream) {
  if (n == 0) {
    return;
  }
  if (limit < 1) {
    throw Error(Error::Kind::runtime, "fill_indices: the limit must be positive");
  }
  fill_indices_kernel<<<detail::grid_for(n, kThreads), kThreads, 0, stream>>>(data, n, seed, limit);
  DGX_CUDA_CHECK_LAUNCH();
}

void convert(const float* in, bf16* out, std::int64_t n, cudaStream_t stream) {
  if (n == 0) {
    return;
  }
  to_bf16_kernel<<<detail::grid_for(n, kThreads), kThreads, 0, stream>>>(in, out, n);
  DGX_CUDA_CHECK_LAUNCH();
}

void convert(const bf16* in, float* out, std::int64_t n, cudaStream_t stream) {
  if (n == 0) {
    return;
  }
  to_float_kernel<<<detail::grid_for(n, kThreads), kThreads, 0, stream>>>(in, out, n);
  DGX_CUDA_CHECK_LAUNCH();
}

void gather_rows(const bf16* in, std::int64_t tokens, std::int64_t cols, bf16* out, std::int64_t routed_rows,
                 float scale, cudaStream_t stream) {
  check_rows(cols, "gather_rows");
  if (routed_rows * cols == 0) {
    return;
  }
  gather_rows_kernel<<<detail::grid_for(routed_rows * cols / detail::kVec, kThreads), kThreads, 0, stream>>>(
      in, tokens, cols, out, routed_rows, scale);
  DGX_CUDA_CHECK_LAUNCH();
}

void sum_rows(const bf16* in, std::int64_t tokens, std::int64_t cols, std::int64_t copies, float scale, bf16* out,
              cudaStream_t stream) {
  check_rows(cols, "sum_rows");
  if (tokens * cols == 0) {
    return;
  }
  sum_rows_kernel<<<detail::grid_for(tokens * cols / detail::kVec, kThreads), kThreads, 0, stream>>>(
      in, tokens, cols, copies, scale, out);
  DGX_CUDA_CHECK_LAUNCH();
}

}  // namespace dgx::llm::cuda
