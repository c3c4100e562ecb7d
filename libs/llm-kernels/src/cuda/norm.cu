// RMSNorm and LayerNorm, forward and backward. Forward: one block per row, three passes over the row (the later
// ones hit L1/L2). Backward: a grid-stride loop over rows whose threads keep their columns' γ/β gradient in
// registers, then a column reduction of the per-block partials into the FP32 main gradients.
#include "common.cuh"

namespace dgx::llm::cuda {

namespace {

using detail::Bf16x8;
using detail::kVec;

constexpr float kEpsilon = 1e-5f;

template <bool kLayer>
__global__ void norm_forward_kernel(const bf16* __restrict__ x, const bf16* __restrict__ gamma,
                                    const bf16* __restrict__ beta, bf16* __restrict__ y, float* __restrict__ mean_out,
                                    float* __restrict__ rstd_out, std::int64_t cols) {
  __shared__ float shared[32];
  const std::int64_t row = blockIdx.x;
  const bf16* xr = x + row * cols;
  const std::int64_t vectors = cols / kVec;
  float v[kVec];
  float mean = 0.0f;
  if (kLayer) {
    float sum = 0.0f;
    for (std::int64_t i = threadIdx.x; i < vectors; i += blockDim.x) {
      detail::load8(xr + i * kVec, v);
#pragma unroll
      for (int e = 0; e < kVec; ++e) {
        sum += v[e];
      }
    }
    mean = detail::block_sum(sum, shared) / float(cols);
  }
  float squares = 0.0f;
  for (std::int64_t i = threadIdx.x; i < vectors; i += blockDim.x) {
    detail::load8(xr + i * kVec, v);
#pragma unroll
    for (int e = 0; e < kVec; ++e) {
      squares += (v[e] - mean) * (v[e] - mean);
    }
  }
  const float rstd = rsqrtf(detail::block_sum(squares, shared) / float(cols) + kEpsilon);
  for (std::int64_t i = threadIdx.x; i < vectors; i += blockDim.x) {
    float g[kVec], b[kVec];
    detail::load8(xr + i * kVec, v);
    detail::load8(gamma + i * kVec, g);
    if (kLayer) {
      detail::load8(beta + i * kVec, b);
    }
#pragma unroll
    for (int e = 0; e < kVec; ++e) {
      v[e] = (v[e] - mean) * rstd * g[e] + (kLayer ? b[e] : 0.0f);
    }
    detail::store8(y + row * cols + i * kVec, v);
  }
  if (threadIdx.x == 0) {
    rstd_out[row] = rstd;
    if (kLayer) {
      mean_out[row] = mean;
    }
  }
}

/// kPerThread: column vectors each thread owns (threads · kPerThread ≥ cols / 8).
template <bool kLayer, int kPerThread>
__global__ void norm_backward_kernel(const bf16* __restrict__ x, const bf16* __restrict__ gamma,
                                     const float* __restrict__ mean_in, const float* __restrict__ rstd_in,
                                     const bf16* __restrict__ dy, bf16* __restrict__ dx, float* __restrict__ partial,
                                     std::int64_t rows, std::int64_t cols) {
  __shared__ float shared[32];
  const std::int64_t vectors = cols / kVec;
  float dgamma[kPerThread][kVec] = {};
  float dbeta[kPerThread][kVec] = {};
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float mean = kLayer ? mean_in[row] : 0.0f, rstd = rstd_in[row];
    const bf16* xr = x + row * cols;
    const bf16* dyr = dy + row * cols;
    float sum_g = 0.0f, sum_gx = 0.0f;
#pragma unroll
    for (int p = 0; p < kPerThread; ++p) {
      const std::int64_t i = threadIdx.x + std::int64_t(p) * blockDim.x;
      if (i >= vectors) {
        break;
      }
      float xv[kVec], dv[kVec], g[kVec];
      detail::load8(xr + i * kVec, xv);
      detail::load8(dyr + i * kVec, dv);
      detail::load8(gamma + i * kVec, g);
#pragma unroll
      for (int e = 0; e < kVec; ++e) {
        const float xhat = (xv[e] - mean) * rstd, ge = dv[e] * g[e];
        sum_g += ge;
        sum_gx += ge * xhat;
        dgamma[p][e] += dv[e] * xhat;
        if (kLayer) {
          dbeta[p][e] += dv[e];
        }
      }
    }
    const float mean_g = kLayer ? detail::block_sum(sum_g, shared) / float(cols) : 0.0f;
    const float mean_gx = detail::block_sum(sum_gx, shared) / float(cols);
#pragma unroll
    for (int p = 0; p < kPerThread; ++p) {
      const std::int64_t i = threadIdx.x + std::int64_t(p) * blockDim.x;
      if (i >= vectors) {
        break;
      }
      float xv[kVec], dv[kVec], g[kVec], out[kVec];
      detail::load8(xr + i * kVec, xv);
      detail::load8(dyr + i * kVec, dv);
      detail::load8(gamma + i * kVec, g);
#pragma unroll
      for (int e = 0; e < kVec; ++e) {
        const float xhat = (xv[e] - mean) * rstd;
        out[e] = rstd * (dv[e] * g[e] - mean_g - xhat * mean_gx);
      }
      detail::store8(dx + row * cols + i * kVec, out);
    }
  }
  // Partials: [gridDim.x, cols] for γ, then the same for β.
#pragma unroll
  for (int p = 0; p < kPerThread; ++p) {
    const std::int64_t i = threadIdx.x + std::int64_t(p) * blockDim.x;
    if (i >= vectors) {
      break;
    }
#pragma unroll
    for (int e = 0; e < kVec; ++e) {
      partial[blockIdx.x * cols + i * kVec + e] = dgamma[p][e];
      if (kLayer) {
        partial[(gridDim.x + blockIdx.x) * cols + i * kVec + e] = dbeta[p][e];
      }
    }
  }
}

__global__ void column_sum_kernel(const float* __restrict__ partial, int blocks, std::int64_t cols,
                                  float* __restrict__ out) {
  for (std::int64_t j = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; j < cols;
       j += std::int64_t(gridDim.x) * blockDim.x) {
    float sum = 0.0f;
    for (int b = 0; b < blocks; ++b) {
      sum += partial[b * cols + j];
    }
    out[j] += sum;
  }
}

constexpr int kThreads = 256;

void check_cols(std::int64_t cols) {
  if (cols % kVec != 0 || cols <= 0) {
    throw Error(Error::Kind::unsupported,
                "norm: the row length (" + std::to_string(cols) + ") must be a multiple of 8");
  }
  if (cols / kVec > std::int64_t(kThreads) * 8) {
    throw Error(Error::Kind::unsupported, "norm: rows longer than 16384 are not supported");
  }
}

int backward_blocks(std::int64_t rows) {
  return static_cast<int>(std::min<std::int64_t>(rows, 2 * detail::sm_count()));
}

template <bool kLayer, int kPerThread>
void launch_backward(const bf16* x, const bf16* gamma, const float* mean, const float* rstd, const bf16* dy, bf16* dx,
                     float* partial, std::int64_t rows, std::int64_t cols, int blocks, cudaStream_t stream) {
  norm_backward_kernel<kLayer, kPerThread>
      <<<blocks, kThreads, 0, stream>>>(x, gamma, mean, rstd, dy, dx, partial, rows, cols);
  DGX_CUDA_CHECK_LAUNCH();
}

template <bool kLayer>
void dispatch_backward(const bf16* x, const bf16* gamma, const float* mean, const float* rstd, const bf16* dy, bf16* dx,
                       float* partial, std::int64_t rows, std::int64_t cols, int blocks, cudaStream_t stream) {
  const std::int64_t per_thread = (cols / kVec + kThreads - 1) / kThreads;
  if (per_thread <= 1) {
    return launch_backward<kLayer, 1>(x, gamma, mean, rstd, dy, dx, partial, rows, cols, blocks, stream);
  }
  if (per_thread <= 2) {
    return launch_backward<kLayer, 2>(x, gamma, mean, rstd, dy, dx, partial, rows, cols, blocks, stream);
  }
  if (per_thread <= 4) {
    return launch_backward<kLayer, 4>(x, gamma, mean, rstd, dy, dx, partial, rows, cols, blocks, stream);
  }
  launch_backward<kLayer, 8>(x, gamma, mean, rstd, dy, dx, partial, rows, cols, blocks, stream);
}

}  // namespace

void norm_forward(kernels::Norm norm, const bf16* x, const bf16* gamma, const bf16* beta, bf16* y, float* mean,
                  float* rstd, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  check_cols(cols);
  if (rows == 0) {
    return;
  }
  if (norm == kernels::Norm::layernorm) {
    norm_forward_kernel<true>
        <<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(x, gamma, beta, y, mean, rstd, cols);
  } else {
    norm_forward_kernel<false>
        <<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(x, gamma, beta, y, mean, rstd, cols);
  }
  DGX_CUDA_CHECK_LAUNCH();
}

std::size_t norm_backward_workspace_bytes(std::int64_t cols) {
  return std::size_t(2) * 2 * static_cast<std::size_t>(detail::sm_count()) * static_cast<std::size_t>(cols) *
         sizeof(float);
}

void norm_backward(kernels::Norm norm, const bf16* x, const bf16* gamma, const float* mean, const float* rstd,
                   const bf16* dy, bf16* dx, float* dgamma, float* dbeta, void* workspace, std::int64_t rows,
                   std::int64_t cols, cudaStream_t stream) {
  check_cols(cols);
  if (rows == 0) {
    return;
  }
  const int blocks = backward_blocks(rows);
  auto* partial = static_cast<float*>(workspace);
  const bool layer = norm == kernels::Norm::layernorm;
  if (layer) {
    dispatch_backward<true>(x, gamma, mean, rstd, dy, dx, partial, rows, cols, blocks, stream);
  } else {
    dispatch_backward<false>(x, gamma, mean, rstd, dy, dx, partial, rows, cols, blocks, stream);
  }
  const unsigned grid = detail::grid_for(cols, kThreads);
  column_sum_kernel<<<grid, kThreads, 0, stream>>>(partial, blocks, cols, dgamma);
  DGX_CUDA_CHECK_LAUNCH();
  if (layer) {
    column_sum_kernel<<<grid, kThreads, 0, stream>>>(partial + std::int64_t(blocks) * cols, blocks, cols, dbeta);
    DGX_CUDA_CHECK_LAUNCH();
  }
}

}  // namespace dgx::llm::cuda
