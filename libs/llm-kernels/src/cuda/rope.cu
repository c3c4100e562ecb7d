// Rotary position embedding on the q and k heads of a QKV row, in place: pairs (x[i], x[i + d/2]) rotated by
// position · θ^(−2i/d) (rotate-half, as Megatron and Llama). The cos/sin table is computed once in double.
#include "common.cuh"

namespace dgx::llm::cuda {

namespace {

__global__ void rope_table_kernel(float2* table, std::int64_t positions, std::int64_t head_dim, double theta) {
  const std::int64_t half = head_dim / 2;
  for (std::int64_t idx = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; idx < positions * half;
       idx += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t position = idx / half, i = idx % half;
    const double angle = double(position) * pow(theta, -2.0 * double(i) / double(head_dim));
    double s = 0, c = 0;
    sincos(angle, &s, &c);
    table[idx] = make_float2(float(c), float(s));
  }
}

/// One thread per two adjacent rotation pairs (bf16x2 loads) of one head of one token.
__global__ void rope_kernel(bf16* __restrict__ rows, std::int64_t tokens, std::int64_t row_stride, std::int64_t heads,
                            std::int64_t head_dim, std::int64_t seq_len, const float2* __restrict__ table, float sign) {
  const std::int64_t half = head_dim / 2, pairs = half / 2;
  for (std::int64_t idx = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; idx < tokens * heads * pairs;
       idx += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t i = 2 * (idx % pairs), head = (idx / pairs) % heads, token = idx / pairs / heads;
    bf16* base = rows + token * row_stride + head * head_dim;
    const float2* cs = table + (token % seq_len) * half + i;
    auto* lo = reinterpret_cast<__nv_bfloat162*>(base + i);
    auto* hi = reinterpret_cast<__nv_bfloat162*>(base + i + half);
    const float2 a = __bfloat1622float2(*lo), b = __bfloat1622float2(*hi);
    const float c0 = cs[0].x, s0 = sign * cs[0].y, c1 = cs[1].x, s1 = sign * cs[1].y;
    *lo = __floats2bfloat162_rn(a.x * c0 - b.x * s0, a.y * c1 - b.y * s1);
    *hi = __floats2bfloat162_rn(b.x * c0 + a.x * s0, b.y * c1 + a.y * s1);
  }
}

constexpr int kThreads = 256;

}  // namespace

void rope_table(float2* table, std::int64_t positions, std::int64_t head_dim, double theta, cudaStream_t stream) {
  rope_table_kernel<<<detail::grid_for(positions * head_dim / 2, kThreads), kThreads, 0, stream>>>(table, positions,
                                                                                                   head_dim, theta);
  DGX_CUDA_CHECK_LAUNCH();
}

void rope_apply(bf16* rows, std::int64_t tokens, std::int64_t row_stride, std::int64_t heads, std::int64_t head_dim,
                std::int64_t seq_len, const float2* table, bool inverse, cudaStream_t stream) {
  if (head_dim % 4 != 0) {
    throw Error(Error::Kind::unsupported, "rope: head_dim (" + std::to_string(head_dim) + ") must be a multiple of 4");
  }
  if (tokens * heads == 0) {
    return;
  }
  rope_kernel<<<detail::grid_for(tokens * heads * head_dim / 4, kThreads), kThreads, 0, stream>>>(
      rows, tokens, row_stride, heads, head_dim, seq_len, table, inverse ? -1.0f : 1.0f);
  DGX_CUDA_CHECK_LAUNCH();
}

}  // namespace dgx::llm::cuda
