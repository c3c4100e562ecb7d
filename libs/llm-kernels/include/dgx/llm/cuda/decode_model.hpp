// A whole dense model decoding on the current CUDA device: every layer's weights (random, in the GEMM precision; the
// embedding and LM head BF16), a paged KV cache for the largest batch, and one decode iteration — embedding, every
// layer (decode attention over the cache), final norm, LM head, greedy token, lengths + 1 — captured as a CUDA graph
// per batch size and replayed. What a serving engine's decode step costs when nothing but the GPU limits it.
// CUDA-free header.
#pragma once

#include "dgx/llm/kernels/serve_spec.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace dgx::llm::cuda {

class DecodeModel {
public:
  /// Allocates the weights and the cache (untimed). Throws std::invalid_argument for an invalid spec and Error
  /// (out_of_memory: the model does not fit this GPU; no_device; unsupported).
  explicit DecodeModel(const kernels::DecodeModelSpec& spec, std::uint64_t seed = 1, int gemm_candidates = 4);
  ~DecodeModel();
  DecodeModel(const DecodeModel&) = delete;
  DecodeModel& operator=(const DecodeModel&) = delete;

  [[nodiscard]] std::string device_name() const;
  /// Tunes the GEMMs for `batch` sequences (at most spec.max_batch), captures the iteration and resets every context
  /// to spec.context (untimed).
  void prepare(std::int64_t batch);
  /// Seconds of `iterations` (1 .. spec.headroom) replays between device events. When the contexts would outgrow the
  /// cache they are reset first (outside the timed region).
  [[nodiscard]] double time_iterations(int iterations);
  /// Weight + KV bytes one iteration of the last timed run read, on average.
  [[nodiscard]] double bytes_per_iteration() const;
  /// The tokens the last iteration chose, one per sequence (for tests).
  [[nodiscard]] std::vector<std::int32_t> last_tokens();

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dgx::llm::cuda
