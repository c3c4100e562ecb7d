// The paged KV cache's append: rotary embedding at each token's position (lengths[seq] + offset) of the q and k heads
// of a QKV row, the rotated k and the v heads written into the cache (BF16, or FP8 E4M3 / scale_inv), q rotated in
// place for the attention that follows.
#include "serve_common.cuh"

namespace dgx::llm::cuda {

namespace {

/// One thread per two adjacent rotation pairs (i, i + 1 and their halves) of one head slot of one token.
__global__ void rope_append_kernel(bf16* __restrict__ qkv, std::int64_t tokens, std::int64_t row_stride,
                                   std::int64_t q_heads, const std::int32_t* __restrict__ seq,
                                   const std::int32_t* __restrict__ offset, const std::int32_t* __restrict__ lengths,
                                   const float2* __restrict__ table, PagedKv cache) {
  const std::int64_t d = cache.head_dim, half = d / 2, pairs = half / 2;
  const std::int64_t slots = q_heads + 2 * cache.kv_heads;
  for (std::int64_t idx = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; idx < tokens * slots * pairs;
       idx += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t i = 2 * (idx % pairs), slot = (idx / pairs) % slots, token = idx / pairs / slots;
    const std::int64_t s = seq[token];
    const std::int64_t position = lengths[s] + offset[token];
    bf16* head = qkv + token * row_stride + slot * d;
    float2 a = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(head + i));
    float2 b = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(head + i + half));
    const bool is_v = slot >= q_heads + cache.kv_heads;
    if (!is_v && table != nullptr) {
      const float2* cs = table + position * half + i;
      const float c0 = cs[0].x, s0 = cs[0].y, c1 = cs[1].x, s1 = cs[1].y;
      const float2 ra = make_float2(a.x * c0 - b.x * s0, a.y * c1 - b.y * s1);
      const float2 rb = make_float2(b.x * c0 + a.x * s0, b.y * c1 + a.y * s1);
      a = ra;
      b = rb;
    }
    if (!is_v) {  // q and k stay rotated in the row too: a prompt's attention reads them from there
      *reinterpret_cast<__nv_bfloat162*>(head + i) = __floats2bfloat162_rn(a.x, a.y);
      *reinterpret_cast<__nv_bfloat162*>(head + i + half) = __floats2bfloat162_rn(b.x, b.y);
    }
    if (slot < q_heads) {
      continue;
    }
    const std::int64_t kv_head = (slot - q_heads) % cache.kv_heads;
    const std::int64_t at = detail::kv_index(cache, s, position, kv_head);
    if (cache.format == kernels::KvFormat::fp8) {
      const float inv = 1.0f / (is_v ? cache.v_scale_inv : cache.k_scale_inv);
      auto* base = static_cast<__nv_fp8x2_storage_t*>(is_v ? cache.v : cache.k);
      base[(at + i) / 2] = __nv_cvt_float2_to_fp8x2(make_float2(a.x * inv, a.y * inv), __NV_SATFINITE, __NV_E4M3);
      base[(at + i + half) / 2] =
          __nv_cvt_float2_to_fp8x2(make_float2(b.x * inv, b.y * inv), __NV_SATFINITE, __NV_E4M3);
    } else {
      auto* base = static_cast<bf16*>(is_v ? cache.v : cache.k);
      *reinterpret_cast<__nv_bfloat162*>(base + at + i) = __floats2bfloat162_rn(a.x, a.y);
      *reinterpret_cast<__nv_bfloat162*>(base + at + i + half) = __floats2bfloat162_rn(b.x, b.y);
    }
  }
}

__global__ void advance_kernel(std::int32_t* lengths, std::int64_t count, int add) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < count;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    lengths[i] += add;
  }
}

constexpr int kThreads = 256;

}  // namespace

void rope_append_kv(bf16* qkv, std::int64_t tokens, std::int64_t row_stride, std::int64_t q_heads,
                    const std::int32_t* seq, const std::int32_t* offset, const std::int32_t* lengths,
                    const float2* rope_table, const PagedKv& cache, cudaStream_t stream) {
  if (cache.head_dim % 4 != 0) {
    throw Error(Error::Kind::unsupported,
                "rope_append_kv: head_dim (" + std::to_string(cache.head_dim) + ") must be a multiple of 4");
  }
  const std::int64_t work = tokens * (q_heads + 2 * cache.kv_heads) * (cache.head_dim / 4);
  if (work == 0) {
    return;
  }
  rope_append_kernel<<<detail::grid_for(work, kThreads), kThreads, 0, stream>>>(qkv, tokens, row_stride, q_heads, seq,
                                                                                offset, lengths, rope_table, cache);
  DGX_CUDA_CHECK_LAUNCH();
}

void advance_lengths(std::int32_t* lengths, std::int64_t count, int add, cudaStream_t stream) {
  if (count == 0) {
    return;
  }
  advance_kernel<<<detail::grid_for(count, kThreads), kThreads, 0, stream>>>(lengths, count, add);
  DGX_CUDA_CHECK_LAUNCH();
}

}  // namespace dgx::llm::cuda
