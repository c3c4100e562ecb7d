// The first and last pipeline stages' memory-bound ops: vocabulary-parallel embedding lookup (and its FP32
// gradient scatter-add), and cross-entropy over the logits of the LM head (one block per token).
#include "common.cuh"

namespace dgx::llm::cuda {

namespace {

constexpr int kThreads = 256;

__global__ void embedding_forward_kernel(const std::int32_t* __restrict__ ids, std::int64_t tokens,
                                         const bf16* __restrict__ table, std::int64_t first_row, std::int64_t rows,
                                         std::int64_t hidden, bf16* __restrict__ out) {
  const std::int64_t per_row = hidden / detail::kVec;
  for (std::int64_t v = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; v < tokens * per_row;
       v += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t t = v / per_row, j = (v % per_row) * detail::kVec;
    const std::int64_t row = std::int64_t(ids[t]) - first_row;
    float x[detail::kVec] = {};
    if (row >= 0 && row < rows) {
      detail::load8(table + row * hidden + j, x);
    }
    detail::store8(out + t * hidden + j, x);
  }
}

__global__ void embedding_backward_kernel(const std::int32_t* __restrict__ ids, std::int64_t tokens,
                                          const bf16* __restrict__ dout, std::int64_t first_row, std::int64_t rows,
                                          std::int64_t hidden, float* __restrict__ dtable) {
  const std::int64_t per_row = hidden / detail::kVec;
  for (std::int64_t v = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; v < tokens * per_row;
       v += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t t = v / per_row, j = (v % per_row) * detail::kVec;
    const std::int64_t row = std::int64_t(ids[t]) - first_row;
    if (row < 0 || row >= rows) {
      continue;
    }
    float x[detail::kVec];
    detail::load8(dout + t * hidden + j, x);
#pragma unroll
    for (int e = 0; e < detail::kVec; ++e) {
      atomicAdd(dtable + row * hidden + j + e, x[e]);
    }
  }
}

/// Applies f(j, value) to every logit of row `row`, 8-wide when the row allows.
template <typename F> __device__ __forceinline__ void for_each_logit(const bf16* row, std::int64_t vocab, F&& f) {
  if (vocab % detail::kVec == 0) {
    for (std::int64_t v = threadIdx.x; v < vocab / detail::kVec; v += blockDim.x) {
      float x[detail::kVec];
      detail::load8(row + v * detail::kVec, x);
#pragma unroll
      for (int e = 0; e < detail::kVec; ++e) {
        f(v * detail::kVec + e, x[e]);
      }
    }
  } else {
    for (std::int64_t j = threadIdx.x; j < vocab; j += blockDim.x) {
      f(j, __bfloat162float(row[j]));
    }
  }
}

__global__ void cross_entropy_forward_kernel(const bf16* __restrict__ logits, const std::int32_t* __restrict__ targets,
                                             std::int64_t vocab, float* __restrict__ loss, float* __restrict__ lse) {
  __shared__ float shared[32];
  const std::int64_t t = blockIdx.x;
  const bf16* row = logits + t * vocab;
  float max = -INFINITY;
  for_each_logit(row, vocab, [&](std::int64_t, float x) { max = fmaxf(max, x); });
  max = detail::block_max(max, shared);
  float sum = 0.0f;
  for_each_logit(row, vocab, [&](std::int64_t, float x) { sum += __expf(x - max); });
  sum = detail::block_sum(sum, shared);
  if (threadIdx.x == 0) {
    const float log_sum_exp = max + logf(sum);
    lse[t] = log_sum_exp;
    loss[t] = log_sum_exp - __bfloat162float(row[targets[t]]);
  }
}

__global__ void cross_entropy_backward_kernel(const bf16* __restrict__ logits, const std::int32_t* __restrict__ targets,
                                              const float* __restrict__ lse, std::int64_t vocab, float grad_scale,
                                              bf16* __restrict__ dlogits) {
  const std::int64_t t = blockIdx.x;
  const float log_sum_exp = lse[t];
  const std::int64_t target = targets[t];
  bf16* out = dlogits + t * vocab;
  for_each_logit(logits + t * vocab, vocab, [&](std::int64_t j, float x) {
    out[j] = __float2bfloat16((__expf(x - log_sum_exp) - (j == target ? 1.0f : 0.0f)) * grad_scale);
  });
}

void check_hidden(std::int64_t hidden) {
  if (hidden % detail::kVec != 0) {
    throw Error(Error::Kind::unsupported, "embedding: hidden (" + std::to_string(hidden) + ") must be a multiple of 8");
  }
}

}  // namespace

void embedding_forward(const std::int32_t* ids, std::int64_t tokens, const bf16* table, std::int64_t first_row,
                       std::int64_t rows, std::int64_t hidden, bf16* out, cudaStream_t stream) {
  check_hidden(hidden);
  if (tokens == 0) {
    return;
  }
  embedding_forward_kernel<<<detail::grid_for(tokens * hidden / detail::kVec, kThreads), kThreads, 0, stream>>>(
      ids, tokens, table, first_row, rows, hidden, out);
  DGX_CUDA_CHECK_LAUNCH();
}

void embedding_backward(const std::int32_t* ids, std::int64_t tokens, const bf16* dout, std::int64_t first_row,
                        std::int64_t rows, std::int64_t hidden, float* dtable, cudaStream_t stream) {
  check_hidden(hidden);
  if (tokens == 0) {
    return;
  }
  embedding_backward_kernel<<<detail::grid_for(tokens * hidden / detail::kVec, kThreads), kThreads, 0, stream>>>(
      ids, tokens, dout, first_row, rows, hidden, dtable);
  DGX_CUDA_CHECK_LAUNCH();
}

void cross_entropy_forward(const bf16* logits, const std::int32_t* targets, std::int64_t tokens, std::int64_t vocab,
                           float* loss, float* lse, cudaStream_t stream) {
  if (tokens == 0) {
    return;
  }
  if (tokens > 0x7fffffff) {
    throw Error(Error::Kind::unsupported, "cross_entropy: too many tokens");
  }
  cross_entropy_forward_kernel<<<static_cast<unsigned>(tokens), kThreads, 0, stream>>>(logits, targets, vocab, loss,
                                                                                       lse);
  DGX_CUDA_CHECK_LAUNCH();
}

void cross_entropy_backward(const bf16* logits, const std::int32_t* targets, const float* lse, std::int64_t tokens,
                            std::int64_t vocab, float grad_scale, bf16* dlogits, cudaStream_t stream) {
  if (tokens == 0) {
    return;
  }
  if (tokens > 0x7fffffff) {
    throw Error(Error::Kind::unsupported, "cross_entropy: too many tokens");
  }
  cross_entropy_backward_kernel<<<static_cast<unsigned>(tokens), kThreads, 0, stream>>>(logits, targets, lse, vocab,
                                                                                        grad_scale, dlogits);
  DGX_CUDA_CHECK_LAUNCH();
}

}  // namespace dgx::llm::cuda
