// The CUDA dependency of llm-inference's measured path, behind a CUDA-free interface: one layer's serving iterations
// (decode, and decode with a prompt chunk) at a replica's per-rank shapes with a paged KV cache, and a whole model's
// decode loop on one GPU. Built against libs/llm-kernels when there is a CUDA toolkit with cuDNN; otherwise every
// machine reports that it cannot measure.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "dgx/llm/kernels/serve_spec.hpp"

namespace dgx::plugins::llm_inference {

class ServeProbe {
public:
  ServeProbe() = default;
  ServeProbe(const ServeProbe&) = delete;
  ServeProbe& operator=(const ServeProbe&) = delete;
  virtual ~ServeProbe() = default;

  [[nodiscard]] virtual std::string device() const = 0;
  /// Seconds of `iterations` decode iterations back to back, between device events.
  [[nodiscard]] virtual double time_decode(int iterations, bool flush_l2) = 0;
  /// Every op of both iterations timed over `repeats` runs (medians), each iteration timed alone, the memory.
  [[nodiscard]] virtual llm::kernels::ServeLayerTiming profile(int repeats) = 0;
};

class DecodeRunner {
public:
  DecodeRunner() = default;
  DecodeRunner(const DecodeRunner&) = delete;
  DecodeRunner& operator=(const DecodeRunner&) = delete;
  virtual ~DecodeRunner() = default;

  [[nodiscard]] virtual std::string device() const = 0;
  /// Captures one decode iteration of `batch` sequences (every layer, the LM head, a greedy token) as a CUDA graph,
  /// with every sequence's context at the spec's (untimed).
  virtual void prepare(std::int64_t batch) = 0;
  /// Seconds of `iterations` graph replays between device events; every sequence grows by one token per replay.
  [[nodiscard]] virtual double time_iterations(int iterations) = 0;
  /// Weight + KV cache bytes one iteration of the last timed run read, on average.
  [[nodiscard]] virtual double bytes_per_iteration() const = 0;
};

/// Empty when a layer can be measured here; else why not ("no CUDA device: ...", "built without CUDA").
[[nodiscard]] std::string serve_probe_unavailable();
/// Builds the layer on the current device (untimed: allocation, cuDNN plans, GEMM tuning). Throws dgx::sdk errors.
[[nodiscard]] std::unique_ptr<ServeProbe> make_serve_probe(const llm::kernels::ServeLayerSpec& spec);
/// Loads the model's random weights on the current device. Throws dgx::sdk errors (out of memory: the model does
/// not fit this GPU).
[[nodiscard]] std::unique_ptr<DecodeRunner> make_decode_runner(const llm::kernels::DecodeModelSpec& spec);

}  // namespace dgx::plugins::llm_inference
