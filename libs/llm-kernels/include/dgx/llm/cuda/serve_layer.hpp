// One decoder layer's serving iterations at a replica's per-rank shapes, on the current CUDA device: the measured
// building block of a serving projection. CUDA-free header.
//
// A decode iteration carries one new token for each of `decode_batch` sequences holding `context` tokens in a
// paged KV cache: fused residual-add + RMSNorm (writing the GEMM input format), QKV GEMM, rotary embedding fused with
// the KV cache append, decode attention over the cache, the FP8 cast of its output, output projection, residual-add +
// RMSNorm, fc1, SwiGLU, fc2. A chunk iteration adds a prompt chunk of `prefill_tokens` tokens of one more sequence to
// the same GEMMs, with cuDNN flash attention (causal) over the chunk. Op names follow dgx::llm::serve_layer_ops.
// TP communication is not run (the projection adds it); the lengths do not advance, so every iteration measures the
// same context. Dense SwiGLU layers only (Llama); others are refused with a message.
#pragma once

#include "dgx/llm/kernels/serve_spec.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace dgx::llm::cuda {

class ServeLayer {
public:
  /// Allocates (random weights, a paged cache with a shuffled block table), builds the cuDNN plan and tunes the
  /// GEMMs (untimed). Throws std::invalid_argument for an invalid spec and Error for what the device cannot do.
  explicit ServeLayer(const kernels::ServeLayerSpec& spec, std::uint64_t seed = 1, int gemm_candidates = 8);
  ~ServeLayer();
  ServeLayer(const ServeLayer&) = delete;
  ServeLayer& operator=(const ServeLayer&) = delete;

  [[nodiscard]] const kernels::ServeLayerSpec& spec() const;
  [[nodiscard]] std::string device_name() const;

  /// Enqueue one iteration.
  void decode();
  void chunk();
  void synchronize();

  /// Seconds of `iterations` decode iterations back to back between two device events; flush_l2 clears the L2
  /// cache before the timed region.
  [[nodiscard]] double time_decode(int iterations, bool flush_l2);
  /// Each op of both iterations timed between device events over `repeats` iterations (medians), each iteration
  /// timed alone, and the memory.
  [[nodiscard]] kernels::ServeLayerTiming profile(int repeats);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dgx::llm::cuda
