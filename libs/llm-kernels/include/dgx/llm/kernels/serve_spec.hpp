// What a measured serving iteration is: one decoder layer at a replica's per-rank shapes (TP splits heads and the
// MLP, EP the experts) with a paged KV cache, running either a decode iteration (one new token for each of
// `decode_batch` sequences that already hold `context` tokens) or a chunk iteration (the same plus a prompt chunk of
// `prefill_tokens` tokens of one more sequence, in the same GEMMs) — in-flight batching as TensorRT-LLM and vLLM run
// it. And a whole model's decode loop for one GPU. CUDA-free: the plugins' configuration and the projection read it.
#pragma once

#include "dgx/llm/kernels/layer_spec.hpp"
#include "dgx/llm/kernels/op_timing.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace dgx::llm::kernels {

/// The KV cache format: BF16, or FP8 E4M3 with one per-tensor scale (K and V each).
enum class KvFormat : std::uint8_t { bf16, fp8 };

[[nodiscard]] std::string_view to_string(KvFormat format);
[[nodiscard]] std::size_t kv_element_bytes(KvFormat format);

/// Tokens per page of the paged KV cache (vLLM's and TensorRT-LLM's default block sizes are 16 and 32).
inline constexpr std::int64_t kKvBlockTokens = 32;

struct ServeLayerSpec {
  Architecture arch;
  int tp = 1;
  int ep = 1;
  Precision precision = Precision::bf16;  ///< the linear layers' GEMMs (FP8: E4M3, per-tensor current scaling)
  KvFormat kv = KvFormat::bf16;
  std::int64_t decode_batch = 1;    ///< sequences generating one token each
  std::int64_t context = 0;         ///< tokens already in each decoding sequence's KV cache
  std::int64_t prefill_tokens = 0;  ///< the prompt chunk of the chunk iteration (0: decode iterations only)
};

/// Throws std::invalid_argument naming the first inconsistent value.
void validate(const ServeLayerSpec& spec);
/// "h=8192 ffn=28672 heads=64 kv=8 d=128 tp=2 fp8 kv=fp8 batch=64 ctx=1500 chunk=1000".
[[nodiscard]] std::string describe(const ServeLayerSpec& spec);

/// Bytes of one rank's weights of the layer (the linear layers at the GEMM precision, norms and router BF16).
[[nodiscard]] double layer_weight_bytes(const ServeLayerSpec& spec);
/// KV cache bytes one rank reads in a decode iteration: decode_batch · context · 2 · KV heads · head dim · bytes.
[[nodiscard]] double decode_kv_bytes(const ServeLayerSpec& spec);

/// The measurement of one layer's decode and chunk iterations on one rank.
struct ServeLayerTiming {
  std::vector<OpTiming> decode;  ///< the decode iteration's ops, in order (per-op device events, medians)
  std::vector<OpTiming> chunk;   ///< the chunk iteration's ops (empty without a prompt chunk)
  double decode_seconds = 0;     ///< the decode iteration timed alone (no per-op events)
  double chunk_seconds = 0;      ///< the chunk iteration timed alone
  std::uint64_t weight_bytes = 0;
  std::uint64_t kv_cache_bytes = 0;  ///< the paged cache allocated
  std::uint64_t peak_bytes = 0;
};

/// A whole model decoding on one GPU: every layer (weights of the GEMM precision, embedding and LM head BF16),
/// batches of sequences that hold `context` tokens each, one greedy token per iteration.
struct DecodeModelSpec {
  Architecture arch;  ///< vocab required
  int layers = 0;
  Precision precision = Precision::bf16;
  KvFormat kv = KvFormat::bf16;
  std::int64_t context = 1024;   ///< tokens in each sequence's cache when a batch size starts
  std::int64_t max_batch = 256;  ///< the largest batch the KV cache is sized for
  std::int64_t headroom = 256;   ///< tokens a sequence may grow by (the most iterations of one timed run) before
                                 ///< its context is reset
};

/// Throws std::invalid_argument naming the first inconsistent value.
void validate(const DecodeModelSpec& spec);

/// Bytes of all weights of the model on the GPU.
[[nodiscard]] double model_weight_bytes(const DecodeModelSpec& spec);
/// KV bytes one token takes over all layers.
[[nodiscard]] double model_kv_bytes_per_token(const DecodeModelSpec& spec);

}  // namespace dgx::llm::kernels
