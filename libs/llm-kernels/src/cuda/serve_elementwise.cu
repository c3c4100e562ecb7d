// The memory-bound ops of a serving iteration that write the next GEMM's input format: residual add fused with
// RMSNorm, SwiGLU, a static FP8 cast, and greedy sampling (arg max of the logits).
#include "serve_common.cuh"

namespace dgx::llm::cuda {

namespace {

constexpr int kThreads = 256;
constexpr float kEpsilon = 1e-5f;

/// 8 floats written as BF16 or as FP8 E4M3 × scale.
__device__ __forceinline__ void store8_any(void* base, std::int64_t index, bool fp8, float scale,
                                           const float (&v)[detail::kVec]) {
  if (fp8) {
    detail::store8_fp8(static_cast<std::uint8_t*>(base) + index, scale, v);
  } else {
    detail::store8(static_cast<bf16*>(base) + index, v);
  }
}

/// One CTA per row: stream += delta (written back), then the normalized row × gamma.
__global__ void add_rmsnorm_kernel(bf16* __restrict__ stream, const bf16* __restrict__ delta,
                                   const bf16* __restrict__ gamma, void* __restrict__ out, bool out_fp8, float scale,
                                   std::int64_t cols) {
  __shared__ float shared[32];
  const std::int64_t row = blockIdx.x;
  bf16* x = stream + row * cols;
  float squares = 0.0f;
  for (std::int64_t c = threadIdx.x * detail::kVec; c < cols; c += blockDim.x * detail::kVec) {
    float v[detail::kVec];
    detail::load8(x + c, v);
    if (delta != nullptr) {
      float d[detail::kVec];
      detail::load8(delta + row * cols + c, d);
#pragma unroll
      for (int i = 0; i < detail::kVec; ++i) {
        v[i] += d[i];
      }
      detail::store8(x + c, v);
    }
#pragma unroll
    for (int i = 0; i < detail::kVec; ++i) {
      squares += v[i] * v[i];
    }
  }
  const float rstd = rsqrtf(detail::block_sum(squares, shared) / float(cols) + kEpsilon);
  for (std::int64_t c = threadIdx.x * detail::kVec; c < cols; c += blockDim.x * detail::kVec) {
    float v[detail::kVec], g[detail::kVec];
    detail::load8(x + c, v);  // this thread wrote it: no barrier needed
    detail::load8(gamma + c, g);
#pragma unroll
    for (int i = 0; i < detail::kVec; ++i) {
      v[i] *= rstd * g[i];
    }
    store8_any(out, row * cols + c, out_fp8, scale, v);
  }
}

__global__ void swiglu_out_kernel(const bf16* __restrict__ in, void* __restrict__ out, bool out_fp8, float scale,
                                  std::int64_t rows, std::int64_t f) {
  const std::int64_t vectors = rows * f / detail::kVec;
  for (std::int64_t idx = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; idx < vectors;
       idx += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t row = idx * detail::kVec / f, c = idx * detail::kVec % f;
    float gate[detail::kVec], up[detail::kVec], v[detail::kVec];
    detail::load8(in + row * 2 * f + c, gate);
    detail::load8(in + row * 2 * f + f + c, up);
#pragma unroll
    for (int i = 0; i < detail::kVec; ++i) {
      v[i] = gate[i] / (1.0f + __expf(-gate[i])) * up[i];
    }
    store8_any(out, row * f + c, out_fp8, scale, v);
  }
}

__global__ void cast_fp8_kernel(const bf16* __restrict__ x, void* __restrict__ out, float scale, std::int64_t n) {
  for (std::int64_t idx = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; idx < n / detail::kVec;
       idx += std::int64_t(gridDim.x) * blockDim.x) {
    float v[detail::kVec];
    detail::load8(x + idx * detail::kVec, v);
    detail::store8_fp8(static_cast<std::uint8_t*>(out) + idx * detail::kVec, scale, v);
  }
}

/// One CTA per row: the largest logit and its (smallest) index.
__global__ void argmax_kernel(const bf16* __restrict__ logits, std::int64_t cols, std::int32_t* __restrict__ ids) {
  __shared__ float best_value[kThreads];
  __shared__ std::int32_t best_index[kThreads];
  const bf16* row = logits + blockIdx.x * cols;
  float value = -INFINITY;
  std::int32_t index = 0;
  for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = __bfloat162float(row[c]);
    if (v > value) {
      value = v;
      index = static_cast<std::int32_t>(c);
    }
  }
  best_value[threadIdx.x] = value;
  best_index[threadIdx.x] = index;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) {
      const float other = best_value[threadIdx.x + stride];
      const std::int32_t other_index = best_index[threadIdx.x + stride];
      if (other > best_value[threadIdx.x] ||
          (other == best_value[threadIdx.x] && other_index < best_index[threadIdx.x])) {
        best_value[threadIdx.x] = other;
        best_index[threadIdx.x] = other_index;
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    ids[blockIdx.x] = best_index[0];
  }
}

void require_vectors(const char* what, std::int64_t n) {
  if (n % detail::kVec != 0) {
    throw Error(Error::Kind::unsupported,
                std::string(what) + ": sizes must be multiples of 8 (16-byte vectors), got " + std::to_string(n));
  }
}

}  // namespace

void add_rmsnorm(bf16* stream, const bf16* delta, const bf16* gamma, void* out, bool out_fp8, float out_scale,
                 std::int64_t rows, std::int64_t cols, cudaStream_t stream_) {
  require_vectors("add_rmsnorm", cols);
  if (rows == 0) {
    return;
  }
  add_rmsnorm_kernel<<<static_cast<unsigned>(rows), kThreads, 0, stream_>>>(stream, delta, gamma, out, out_fp8,
                                                                            out_scale, cols);
  DGX_CUDA_CHECK_LAUNCH();
}

void swiglu_out(const bf16* in, void* out, bool out_fp8, float out_scale, std::int64_t rows, std::int64_t f,
                cudaStream_t stream) {
  require_vectors("swiglu_out", f);
  if (rows * f == 0) {
    return;
  }
  swiglu_out_kernel<<<detail::grid_for(rows * f / detail::kVec, kThreads), kThreads, 0, stream>>>(in, out, out_fp8,
                                                                                                  out_scale, rows, f);
  DGX_CUDA_CHECK_LAUNCH();
}

void cast_fp8_static(const bf16* x, void* out, float scale, std::int64_t n, cudaStream_t stream) {
  require_vectors("cast_fp8_static", n);
  if (n == 0) {
    return;
  }
  cast_fp8_kernel<<<detail::grid_for(n / detail::kVec, kThreads), kThreads, 0, stream>>>(x, out, scale, n);
  DGX_CUDA_CHECK_LAUNCH();
}

void argmax_rows(const bf16* logits, std::int64_t rows, std::int64_t cols, std::int32_t* ids, cudaStream_t stream) {
  if (rows == 0) {
    return;
  }
  argmax_kernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(logits, cols, ids);
  DGX_CUDA_CHECK_LAUNCH();
}

}  // namespace dgx::llm::cuda
