#include "serve_buffers.hpp"

#include "dgx/llm/cuda/check.hpp"
#include "dgx/llm/cuda/kernels.hpp"

#include <algorithm>
#include <numeric>
#include <random>

namespace dgx::llm::cuda::detail {

namespace {

std::size_t bf16_bytes(std::int64_t n) { return static_cast<std::size_t>(n) * sizeof(bf16); }

}  // namespace

ServeDims::ServeDims(const kernels::Architecture& a, int tp)
    : hq(a.heads / tp), hkv(a.kv_groups >= tp ? a.kv_groups / tp : 1), d(a.dim()), h(a.hidden), f(a.ffn / tp),
      qkv_w((hq + 2 * hkv) * d) {}

ServeLayerWeights::ServeLayerWeights(const ServeDims& dims, kernels::Precision precision, std::uint64_t& seed,
                                     cudaStream_t stream)
    : qkv(make_serve_weights(dims.h, dims.qkv_w, precision, next_seed(seed), stream)),
      proj(make_serve_weights(dims.q_width(), dims.h, precision, next_seed(seed), stream)),
      fc1(make_serve_weights(dims.h, 2 * dims.f, precision, next_seed(seed), stream)),
      fc2(make_serve_weights(dims.f, dims.h, precision, next_seed(seed), stream)) {
  for (DeviceBuffer* gamma : {&gamma_attn, &gamma_mlp}) {
    *gamma = DeviceBuffer(bf16_bytes(dims.h));
    fill_uniform(gamma->as<bf16>(), dims.h, next_seed(seed), 0.1f, stream, 1.0f);
  }
}

ServeActivations::ServeActivations(const ServeDims& dims, std::int64_t rows, std::uint64_t seed, cudaStream_t stream) {
  const std::int64_t padded = padded_rows(rows);
  const auto buffer = [&](DeviceBuffer& b, std::int64_t cols) {
    b = DeviceBuffer(bf16_bytes(padded * cols));
    if (seed == 0) {
      DGX_CUDA_CHECK(cudaMemsetAsync(b.get(), 0, b.bytes(), stream));
    } else {
      fill_uniform(b.as<bf16>(), padded * cols, next_seed(seed), 1.0f, stream);
    }
  };
  buffer(x, dims.h);
  buffer(normed, dims.h);
  buffer(qkv, dims.qkv_w);
  buffer(attention, dims.q_width());
  buffer(attention_in, dims.q_width());
  buffer(delta_attn, dims.h);
  buffer(fc1, 2 * dims.f);
  buffer(act, dims.f);
  buffer(delta_mlp, dims.h);
}

PagedKvStorage::PagedKvStorage(const ServeDims& dims, kernels::KvFormat format, std::int64_t sequences,
                               std::int64_t tokens, int layers, std::uint64_t shuffle_seed, int fill,
                               cudaStream_t stream) {
  base.block_tokens = kernels::kKvBlockTokens;
  base.max_blocks = (tokens + base.block_tokens - 1) / base.block_tokens;
  base.kv_heads = dims.hkv;
  base.head_dim = dims.d;
  base.format = format;
  const std::int64_t blocks = sequences * base.max_blocks;
  std::vector<std::int32_t> order(static_cast<std::size_t>(blocks));
  std::iota(order.begin(), order.end(), 0);
  if (shuffle_seed != 0) {
    std::shuffle(order.begin(), order.end(), std::mt19937_64(shuffle_seed));
  }
  table = upload_ints(order);
  base.block_table = table.as<std::int32_t>();
  const std::size_t bytes =
      std::size_t(blocks * base.block_tokens * dims.hkv * dims.d) * kernels::kv_element_bytes(format);
  for (int l = 0; l < layers; ++l) {
    for (std::vector<DeviceBuffer>* side : {&k, &v}) {
      side->emplace_back(bytes);
      DGX_CUDA_CHECK(cudaMemsetAsync(side->back().get(), fill, bytes, stream));
    }
  }
}

PagedKv PagedKvStorage::layer(std::size_t i) const {
  PagedKv c = base;
  c.k = k.at(i).get();
  c.v = v.at(i).get();
  return c;
}

DeviceBuffer upload_ints(const std::vector<std::int32_t>& values) {
  DeviceBuffer buffer(std::max<std::size_t>(values.size(), 1) * sizeof(std::int32_t));
  DGX_CUDA_CHECK(cudaMemcpy(buffer.get(), values.data(), values.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice));
  // A pageable upload returns once staged, possibly before its DMA lands; kernels on our non-blocking streams do
  // not wait for the legacy stream, so wait here (setup only).
  DGX_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
  return buffer;
}

DecodeAttentionArgs decode_args(const ServeDims& dims, const ServeActivations& a, std::int64_t batch,
                                const std::int32_t* lengths, int splits, float* workspace) {
  DecodeAttentionArgs args;
  args.batch = batch;
  args.q_heads = dims.hq;
  args.q = a.qkv.as<bf16>();
  args.q_stride = dims.qkv_w;
  args.out = a.attention.as<bf16>();
  args.o_stride = dims.q_width();
  args.lengths = lengths;
  args.pending = 1;
  args.splits = splits;
  args.workspace = workspace;
  return args;
}

}  // namespace dgx::llm::cuda::detail
