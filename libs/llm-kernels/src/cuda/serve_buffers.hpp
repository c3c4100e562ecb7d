// What one serving layer holds on the device, shared by ServeLayer and DecodeModel: its per-rank sizes, its weights
// (the four linear layers in the GEMM precision and the two norms) and the activations of an iteration (rows padded to
// 16 for cuBLASLt's FP8 GEMMs).
#pragma once

// blas.hpp (through serve_linear.hpp) first: its DType::bf16 after kernels.hpp's bf16 alias trips -Wshadow.
#include "serve_linear.hpp"

#include "dgx/llm/cuda/serve_kernels.hpp"

#include <cstdint>
#include <vector>

namespace dgx::llm::cuda::detail {

/// Per-rank sizes of a layer at TP `tp`: query and KV heads (KV replicated when TP exceeds them), head dim, hidden,
/// the MLP's ffn / tp, the QKV row width.
struct ServeDims {
  ServeDims(const kernels::Architecture& a, int tp);
  std::int64_t hq, hkv, d, h, f, qkv_w;
  [[nodiscard]] std::int64_t q_width() const { return hq * d; }
};

/// Random weights of one layer: qkv [qkv_w, h], proj [h, hq·d], fc1 [2f, h], fc2 [h, f] in `precision`; the norms'
/// gammas near 1. `seed` advances once per tensor.
struct ServeLayerWeights {
  ServeLayerWeights(const ServeDims& dims, kernels::Precision precision, std::uint64_t& seed, cudaStream_t stream);
  ServeWeights qkv, proj, fc1, fc2;
  DeviceBuffer gamma_attn, gamma_mlp;
  [[nodiscard]] std::size_t bytes() const { return qkv.bytes() + proj.bytes() + fc1.bytes() + fc2.bytes(); }
};

/// The activations of an iteration of up to `rows` tokens: uniform random from `seed`, or zeros when it is 0.
struct ServeActivations {
  ServeActivations(const ServeDims& dims, std::int64_t rows, std::uint64_t seed, cudaStream_t stream);
  DeviceBuffer x, normed, qkv, attention, attention_in, delta_attn, fc1, act, delta_mlp;
};

/// A paged KV cache for `layers` layers: per layer K and V of `sequences` × ceil(tokens / block) blocks, one block
/// table for all (shuffled by `shuffle_seed` so that a sequence's blocks are scattered, in order when it is 0), filled
/// with `fill` bytes (0 is BF16 zero; 0x30 is E4M3 0.5).
struct PagedKvStorage {
  PagedKvStorage(const ServeDims& dims, kernels::KvFormat format, std::int64_t sequences, std::int64_t tokens,
                 int layers, std::uint64_t shuffle_seed, int fill, cudaStream_t stream);
  /// The descriptor of layer `i`'s cache.
  [[nodiscard]] PagedKv layer(std::size_t i) const;
  [[nodiscard]] std::size_t bytes() const { return 2 * k.size() * k.front().bytes(); }

  PagedKv base;  ///< everything but the K and V pointers
  DeviceBuffer table;
  std::vector<DeviceBuffer> k, v;
};

/// A device copy of host integers (at least one element).
[[nodiscard]] DeviceBuffer upload_ints(const std::vector<std::int32_t>& values);

/// The next seed of a sequence: a large odd stride apart (the fills' hash decorrelates neighbours).
[[nodiscard]] inline std::uint64_t next_seed(std::uint64_t& seed) { return seed++ * 0x9e3779b97f4a7c15ull + 1; }

/// Decode attention of the first `batch` QKV rows of `a` (each row's q heads) into `a.attention`.
[[nodiscard]] DecodeAttentionArgs decode_args(const ServeDims& dims, const ServeActivations& a, std::int64_t batch,
                                              const std::int32_t* lengths, int splits, float* workspace);

}  // namespace dgx::llm::cuda::detail
