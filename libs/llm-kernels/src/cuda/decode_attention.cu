// Decode attention over a paged KV cache (flash-decoding): one CTA per (sequence, group of up to 8 query heads that
// share a KV head, part of the sequence). Each group of head_dim / 8 lanes takes one cached token at a time (8
// elements per lane: a 16-byte BF16 or 8-byte FP8 load), scores it against every query head of the CTA and keeps an
// online softmax; the token groups of the CTA are merged in shared memory, and the parts of a sequence by a second
// kernel. Scores are kept in the log2 domain (queries pre-scaled by log2(e) / sqrt(d)), as FlashAttention does.
#include "serve_common.cuh"

#include <cmath>

namespace dgx::llm::cuda {

namespace {

constexpr int kThreads = 128;
constexpr float kLog2e = 1.4426950408889634f;

template <int D, int G, bool FP8>
__global__ void __launch_bounds__(kThreads)
    decode_attention_kernel(DecodeAttentionArgs a, PagedKv c, float softmax_scale) {
  constexpr int L = D / detail::kVec;   // lanes per token
  constexpr int GROUPS = kThreads / L;  // tokens in flight per CTA
  __shared__ float s_acc[GROUPS][G][D];
  __shared__ float s_m[GROUPS][G];
  __shared__ float s_l[GROUPS][G];

  const int b = blockIdx.x, head0 = blockIdx.y * G, split = blockIdx.z;
  const std::int64_t group_size = a.q_heads / c.kv_heads;
  const std::int64_t kv_head = head0 / group_size;
  const std::int64_t len = a.lengths[b] + a.pending;
  const std::int64_t per_split = (len + a.splits - 1) / a.splits;
  const std::int64_t t0 = split * per_split, t1 = min(len, t0 + per_split);
  const int lane = threadIdx.x % L, group = threadIdx.x / L, d0 = lane * detail::kVec;

  float q[G][detail::kVec], acc[G][detail::kVec], m[G], l[G];
#pragma unroll
  for (int g = 0; g < G; ++g) {
    detail::load8(a.q + b * a.q_stride + (head0 + g) * D + d0, q[g]);
#pragma unroll
    for (int i = 0; i < detail::kVec; ++i) {
      q[g][i] *= softmax_scale;
      acc[g][i] = 0.0f;
    }
    m[g] = -INFINITY;
    l[g] = 0.0f;
  }

  // The loop bound is the same for the whole CTA, so every lane reaches the shuffles; a group past the end of its
  // part reads nothing and leaves its state unchanged.
  for (std::int64_t base = t0; base < t1; base += GROUPS) {
    const std::int64_t t = base + group;
    const bool valid = t < t1;
    float k[detail::kVec] = {}, v[detail::kVec] = {};
    if (valid) {
      const std::int64_t at = detail::kv_index(c, b, t, kv_head) + d0;
      detail::load8_any<FP8>(c.k, at, c.k_scale_inv, k);
      detail::load8_any<FP8>(c.v, at, c.v_scale_inv, v);
    }
#pragma unroll
    for (int g = 0; g < G; ++g) {
      float s = 0.0f;
#pragma unroll
      for (int i = 0; i < detail::kVec; ++i) {
        s += q[g][i] * k[i];
      }
#pragma unroll
      for (int offset = L / 2; offset > 0; offset >>= 1) {
        s += __shfl_xor_sync(0xffffffffu, s, offset);
      }
      if (!valid) {
        continue;
      }
      const float m_new = fmaxf(m[g], s);
      const float correction = exp2f(m[g] - m_new);
      const float p = exp2f(s - m_new);
      l[g] = l[g] * correction + p;
#pragma unroll
      for (int i = 0; i < detail::kVec; ++i) {
        acc[g][i] = acc[g][i] * correction + p * v[i];
      }
      m[g] = m_new;
    }
  }

#pragma unroll
  for (int g = 0; g < G; ++g) {
#pragma unroll
    for (int i = 0; i < detail::kVec; ++i) {
      s_acc[group][g][d0 + i] = acc[g][i];
    }
    if (lane == 0) {
      s_m[group][g] = m[g];
      s_l[group][g] = l[g];
    }
  }
  __syncthreads();
  for (int e = threadIdx.x; e < G * D; e += kThreads) {
    const int g = e / D, d = e % D;
    float top = -INFINITY;
    for (int r = 0; r < GROUPS; ++r) {
      top = fmaxf(top, s_m[r][g]);
    }
    float sum = 0.0f, value = 0.0f;
    if (top != -INFINITY) {
      for (int r = 0; r < GROUPS; ++r) {
        const float w = exp2f(s_m[r][g] - top);
        sum += s_l[r][g] * w;
        value += s_acc[r][g][d] * w;
      }
    }
    const std::int64_t row = std::int64_t(b) * a.q_heads + head0 + g;
    if (a.splits == 1) {
      a.out[b * a.o_stride + (head0 + g) * D + d] = __float2bfloat16(sum > 0.0f ? value / sum : 0.0f);
    } else {
      float* part = a.workspace + (row * a.splits + split) * (D + 2);
      part[d] = value;
      if (d == 0) {
        part[D] = top;
        part[D + 1] = sum;
      }
    }
  }
}

/// One CTA of D threads per (sequence, query head): the parts' partial sums rescaled to a common maximum.
template <int D> __global__ void decode_combine_kernel(DecodeAttentionArgs a) {
  const std::int64_t row = blockIdx.x;
  const std::int64_t b = row / a.q_heads, head = row % a.q_heads;
  const float* parts = a.workspace + row * a.splits * (D + 2);
  float top = -INFINITY;
  for (int s = 0; s < a.splits; ++s) {
    top = fmaxf(top, parts[s * (D + 2) + D]);
  }
  float sum = 0.0f, value = 0.0f;
  if (top != -INFINITY) {
    for (int s = 0; s < a.splits; ++s) {
      const float* part = parts + s * (D + 2);
      const float w = exp2f(part[D] - top);
      sum += part[D + 1] * w;
      value += part[threadIdx.x] * w;
    }
  }
  a.out[b * a.o_stride + head * D + threadIdx.x] = __float2bfloat16(sum > 0.0f ? value / sum : 0.0f);
}

template <int D, int G, bool FP8> void launch(const DecodeAttentionArgs& a, const PagedKv& c, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>(a.batch), static_cast<unsigned>(a.q_heads / G),
                  static_cast<unsigned>(a.splits));
  const float scale = kLog2e / std::sqrt(float(D));
  decode_attention_kernel<D, G, FP8><<<grid, kThreads, 0, stream>>>(a, c, scale);
  DGX_CUDA_CHECK_LAUNCH();
  if (a.splits > 1) {
    decode_combine_kernel<D><<<static_cast<unsigned>(a.batch * a.q_heads), D, 0, stream>>>(a);
    DGX_CUDA_CHECK_LAUNCH();
  }
}

template <int D, int G> void dispatch_format(const DecodeAttentionArgs& a, const PagedKv& c, cudaStream_t stream) {
  if (c.format == kernels::KvFormat::fp8) {
    launch<D, G, true>(a, c, stream);
  } else {
    launch<D, G, false>(a, c, stream);
  }
}

template <int D> void dispatch_heads(const DecodeAttentionArgs& a, const PagedKv& c, int g, cudaStream_t stream) {
  switch (g) {
  case 8: dispatch_format<D, 8>(a, c, stream); break;
  case 4: dispatch_format<D, 4>(a, c, stream); break;
  case 2: dispatch_format<D, 2>(a, c, stream); break;
  default: dispatch_format<D, 1>(a, c, stream); break;
  }
}

/// Query heads per CTA: the largest of 8, 4, 2, 1 that divides the query heads of one KV head.
int heads_per_cta(std::int64_t q_heads, std::int64_t kv_heads) {
  const std::int64_t group = q_heads / kv_heads;
  for (const int g : {8, 4, 2}) {
    if (group % g == 0) {
      return g;
    }
  }
  return 1;
}

}  // namespace

int decode_attention_splits(std::int64_t batch, std::int64_t q_heads, std::int64_t kv_heads, std::int64_t max_context) {
  const std::int64_t ctas = batch * (q_heads / heads_per_cta(q_heads, kv_heads));
  const std::int64_t wanted = (2 * std::int64_t(detail::sm_count()) + ctas - 1) / ctas;
  // A part of fewer than 256 tokens costs more to combine than it saves.
  const std::int64_t most = std::max<std::int64_t>(1, (max_context + 255) / 256);
  return static_cast<int>(std::clamp<std::int64_t>(wanted, 1, std::min<std::int64_t>(most, 64)));
}

std::size_t decode_attention_workspace_bytes(std::int64_t batch, std::int64_t q_heads, std::int64_t head_dim,
                                             int splits) {
  return splits > 1 ? std::size_t(batch * q_heads * splits * (head_dim + 2)) * sizeof(float) : 0;
}

void decode_attention(const DecodeAttentionArgs& a, const PagedKv& c, cudaStream_t stream) {
  if (a.batch == 0) {
    return;
  }
  if (c.kv_heads < 1 || a.q_heads % c.kv_heads != 0) {
    throw Error(Error::Kind::unsupported, "decode_attention: q_heads must be a multiple of kv_heads");
  }
  if (a.splits > 1 && a.workspace == nullptr) {
    throw Error(Error::Kind::runtime, "decode_attention: a split sequence needs a workspace");
  }
  const int g = heads_per_cta(a.q_heads, c.kv_heads);
  switch (c.head_dim) {
  case 64: dispatch_heads<64>(a, c, g, stream); break;
  case 128: dispatch_heads<128>(a, c, g, stream); break;
  case 256: dispatch_heads<256>(a, c, g, stream); break;
  default:
    throw Error(Error::Kind::unsupported,
                "decode_attention: head_dim " + std::to_string(c.head_dim) + " (64, 128 and 256 are built)");
  }
}

}  // namespace dgx::llm::cuda
