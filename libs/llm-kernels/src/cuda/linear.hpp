// One linear layer (y = x Wᵀ, W [out, in]) of a transformer layer, or `groups` of them (MoE experts with
// balanced routing, run as one strided-batched GEMM): BF16 weights and FP32 main gradients, and in FP8 the
// transposed copies the Hopper layouts need. Its forward records "cast_<name>_input" (FP8) and "<name>.forward";
// its backward "cast_<name>_grad" (FP8), "<name>.dgrad" and "<name>.wgrad" (accumulating into the FP32 gradient).
// A frozen linear (LoRA) has no gradient and no wgrad, keeps its input only for its adapter, and its FP8 casts
// write no transposed copy (only wgrad reads them); its adapter (lora.hpp) runs after its GEMMs.
#pragma once

#include "context.hpp"
#include "lora.hpp"

#include <memory>
#include <optional>
#include <string>

namespace dgx::llm::cuda::detail {

struct LinearSpec {
  std::string name;       ///< e.g. "qkv", "expert_fc1"
  std::int64_t rows = 0;  ///< rows per group (tokens, or rows per expert)
  std::int64_t in = 0, out = 0;
  std::int64_t groups = 1;
  kernels::Precision precision = kernels::Precision::bf16;
};

/// How a linear layer trains: all of it (the default), or frozen (LoRA's base), with or without an adapter.
struct LinearTraining {
  bool frozen = false;           ///< no weight gradient
  std::optional<LoraSpec> lora;  ///< an adapter on this (frozen) layer
};

class Linear {
public:
  /// Registers the FP8 scales it needs; allocate() after Context::init_scales.
  Linear(Context& ctx, LinearSpec spec, LinearTraining training = {});
  ~Linear();
  Linear(const Linear&) = delete;
  Linear& operator=(const Linear&) = delete;

  /// Weights (random, scale 1/sqrt(in)), gradients (zero), FP8 weight copies, GEMM descriptors.
  void allocate();
  /// Times the cuBLASLt candidates of the three GEMMs on scratch operands (untimed setup).
  void tune();
  /// Recasts the FP8 weight copies after the BF16 weights changed (current scaling; untimed).
  void refresh_fp8_weights();

  /// x [groups·rows, in] -> y [groups·rows, out]. Keeps x (BF16: the caller keeps it alive until backward) or its
  /// transposed FP8 copy for the wgrad.
  void forward(const bf16* x, bf16* y);
  /// dy [groups·rows, out] -> dx [groups·rows, in] (skipped when null); dW += dyᵀ x.
  void backward(const bf16* dy, bf16* dx);
  /// Drops what forward kept (full recompute keeps nothing between the passes).
  void release_saved();
  /// Whether the backward reads the BF16 input the caller passed to forward (BF16 wgrad, or the adapter).
  [[nodiscard]] bool reads_input() const { return adapter_ != nullptr || (!frozen_ && !fp8()); }

  [[nodiscard]] const LinearSpec& spec() const { return spec_; }
  [[nodiscard]] bf16* weight() const { return weight_.as<bf16>(); }
  [[nodiscard]] float* gradient() const { return gradient_.as<float>(); }  ///< null when frozen
  [[nodiscard]] LoraAdapter* adapter() const { return adapter_.get(); }
  [[nodiscard]] std::int64_t weight_elements() const { return spec_.groups * spec_.out * spec_.in; }
  [[nodiscard]] std::int64_t total_rows() const { return spec_.groups * spec_.rows; }

private:
  [[nodiscard]] bool fp8() const { return spec_.precision == kernels::Precision::fp8; }
  void backward_fp8(const bf16* dy, bf16* dx);
  /// BF16 -> FP8 (and transposed) with this linear's scaling of activations or gradients; records `name`.
  void cast(const std::string& name, kernels::Pass pass, const bf16* x, std::int64_t cols, int scale, bool e5m2,
            void* out, void* out_t);
  [[nodiscard]] GemmDesc forward_desc() const;
  [[nodiscard]] GemmDesc dgrad_desc() const;
  [[nodiscard]] GemmDesc wgrad_desc() const;

  Context& ctx_;
  LinearSpec spec_;
  bool frozen_ = false;
  int scale_weight_ = -1, scale_input_ = -1, scale_grad_ = -1;
  DeviceBuffer weight_, gradient_, weight_fp8_, weight_fp8_t_;
  std::unique_ptr<Gemm> forward_, dgrad_, wgrad_;  ///< wgrad_: null when frozen
  std::unique_ptr<LoraAdapter> adapter_;
  const bf16* saved_input_ = nullptr;
  DeviceBuffer saved_input_fp8_t_;
};

}  // namespace dgx::llm::cuda::detail
