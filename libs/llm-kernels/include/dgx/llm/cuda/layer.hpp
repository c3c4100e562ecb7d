// One transformer layer's forward and backward at the per-rank shapes of a layout, on the current CUDA device:
// the measured building block of a training step. CUDA-free header.
//
// The layer is a pre-norm decoder layer (norm, QKV, rotary, causal GQA flash attention, output projection,
// residual, norm, MLP or MoE experts, residual) in Megatron's tensor/sequence-parallel form: GEMMs run on all
// tokens of the rank (tokens = micro_batch · seq_len / cp), norms and residuals on the sequence-parallel shard
// (tokens / tp). Communication (TP all-gathers and reduce-scatters, the CP ring, the EP all-to-all) is not run:
// the projection adds it from the network model; the gathered rows another rank would send are random data. With
// cp > 1 the attention runs the ring's shapes (one causal step on the local chunk, cp − 1 steps against half
// chunks), which is timing-faithful but not a full CP computation; correctness checks use cp = 1.
//
// Every buffer comes from one stream-ordered memory pool, allocated and freed where a framework would (saved
// activations live from the forward to the backward, temporaries for one op), so the pool's high-water mark is
// the layer's measured peak memory.
#pragma once

#include "dgx/llm/kernels/layer_spec.hpp"
#include "dgx/llm/kernels/op_timing.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace dgx::llm::cuda {

struct LayerOptions {
  std::uint64_t seed = 1;   ///< weights, inputs and the remote rows are uniform random from this seed
  int gemm_candidates = 8;  ///< cuBLASLt heuristic candidates timed per GEMM at setup (1: the first)
};

struct MemoryUse {
  std::uint64_t peak = 0;         ///< pool high-water mark during a step (everything below included)
  std::uint64_t weights = 0;      ///< BF16 weights and their FP8 copies
  std::uint64_t gradients = 0;    ///< FP32 main gradients
  std::uint64_t activations = 0;  ///< kept from the forward for the backward
  std::uint64_t workspace = 0;    ///< cuBLASLt and cuDNN workspaces
};

class TransformerLayer {
public:
  /// Allocates, builds the cuDNN plans and tunes the GEMMs (untimed). Throws std::invalid_argument for an invalid
  /// spec and Error (no_device, unsupported, out_of_memory, runtime) for what the device cannot do.
  explicit TransformerLayer(const kernels::LayerSpec& spec, const LayerOptions& options = {});
  ~TransformerLayer();
  TransformerLayer(const TransformerLayer&) = delete;
  TransformerLayer& operator=(const TransformerLayer&) = delete;

  [[nodiscard]] const kernels::LayerSpec& spec() const;
  [[nodiscard]] const kernels::RankShapes& shapes() const;
  [[nodiscard]] std::string device_name() const;

  /// Enqueues the forward (then the backward) of one micro-batch; step() adds the FP8 scale update.
  void forward();
  void backward();
  void step();
  void synchronize();

  /// Seconds of `steps` steps back to back between two device events (no warm-up: the caller's); flush_l2
  /// clears the L2 cache before the timed region.
  [[nodiscard]] double time_steps(int steps, bool flush_l2);
  /// Each op timed between device events over `repeats` steps (medians), the step timed alone, and the memory.
  [[nodiscard]] kernels::LayerTiming profile(int repeats);
  /// Runs one step with the pool's high-water mark reset and reports the memory it used.
  [[nodiscard]] MemoryUse measure_memory();

  /// Host access to named tensors as FP32, in the layouts of dgx::llm::reference::LayerWeights: "x", "dy", "y",
  /// "dx", "<param>" and "<param>.grad" for every parameter in parameter_names() (with LoRA: the trained adapters
  /// "<linear>.lora_a" [rank, in] and "<linear>.lora_b" [out, rank]; the frozen "<linear>.weight" can be read and
  /// written, and has no gradient).
  [[nodiscard]] std::vector<std::string> parameter_names() const;
  [[nodiscard]] std::vector<float> download(const std::string& name);
  void upload(const std::string& name, const std::vector<float>& values);
  void zero_gradients();

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dgx::llm::cuda
