// What the parts of a layer share: the stream, the memory pool every buffer comes from, the cuBLASLt and cuDNN
// handles, the FP8 scale registry, and the recorder that times each op when profiling.
#pragma once

#include "dgx/llm/cuda/attention.hpp"
#include "dgx/llm/cuda/blas.hpp"
#include "dgx/llm/cuda/fp8.hpp"
#include "dgx/llm/cuda/resources.hpp"
#include "dgx/llm/kernels/layer_spec.hpp"
#include "dgx/llm/kernels/op_timing.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace dgx::llm::cuda::detail {

/// Times each op of a step between two events when profiling; otherwise just enqueues it. The op sequence of a
/// step is deterministic, so slot i of every profiled step is the same op.
class Recorder {
public:
  explicit Recorder(cudaStream_t stream) : stream_(stream) {}

  void begin_step(bool profiling) {
    profiling_ = profiling;
    next_ = 0;
  }
  void set_recompute(bool recompute) { recompute_ = recompute; }

  template <typename Enqueue> void op(kernels::OpTiming meta, Enqueue&& enqueue) {
    if (!profiling_) {
      enqueue();
      return;
    }
    Slot& slot = next_slot();
    meta.recompute = recompute_;
    slot.meta = std::move(meta);
    slot.start.record(stream_);
    enqueue();
    slot.stop.record(stream_);
  }

  /// After a profiled step has completed: appends each op's time to its samples.
  void collect();
  /// The ops of the profiled steps with their median times; clears the samples.
  std::vector<kernels::OpTiming> results();

private:
  struct Slot {
    kernels::OpTiming meta;
    Event start, stop;
    std::vector<double> samples;
  };
  Slot& next_slot();

  cudaStream_t stream_;
  std::vector<Slot> slots_;
  std::size_t next_ = 0;
  std::size_t used_ = 0;
  bool profiling_ = false;
  bool recompute_ = false;
};

struct Context {
  Context(const kernels::LayerSpec& layer_spec, int candidates, std::uint64_t random_seed);

  const kernels::LayerSpec spec;
  const kernels::RankShapes shapes;
  const int gemm_candidates;
  std::uint64_t seed;
  Stream stream;
  MemoryPool pool;
  BlasLt blas;
  Cudnn cudnn;
  Recorder recorder;
  std::uint64_t weight_bytes = 0, gradient_bytes = 0;

  [[nodiscard]] cudaStream_t s() const { return stream.get(); }
  [[nodiscard]] bool fp8() const { return spec.precision == kernels::Precision::fp8; }
  [[nodiscard]] bool current_scaling() const { return spec.scaling == kernels::Fp8Scaling::current; }
  /// A buffer from the layer's pool, allocated in stream order.
  [[nodiscard]] DeviceBuffer alloc(std::size_t bytes) { return DeviceBuffer(bytes, pool, s()); }
  /// A fresh seed for a random fill.
  [[nodiscard]] std::uint64_t next_seed() { return seed++ * 0x9e3779b97f4a7c15ull + 1; }

  /// Registers an FP8 scale (before the first init_scales) and returns its index.
  int add_scale(bool e5m2);
  /// Allocates the registered scales (the first time) and resets them: scale 1, empty amax histories.
  void init_scales();
  [[nodiscard]] Fp8Scale* scale(int index) const { return scales_.as<Fp8Scale>() + index; }
  [[nodiscard]] const float* scale_inv(int index) const { return scale_inv_of(scale(index)); }
  /// Delayed scaling: derives the next step's scales from the amax histories.
  void update_scales();

private:
  std::vector<bool> scale_e5m2_;
  DeviceBuffer scales_;
};

// Metadata of the ops a layer records.
[[nodiscard]] kernels::OpTiming gemm_op(std::string name, kernels::Pass pass, const GemmDesc& desc);
[[nodiscard]] kernels::OpTiming memory_op(std::string name, kernels::Pass pass, double bytes);
[[nodiscard]] kernels::OpTiming attention_op(kernels::Pass pass, const AttentionConfig& config);

}  // namespace dgx::llm::cuda::detail
