// The LoRA adapter of one frozen linear layer (layer_spec.hpp, kernels::Lora): y += s·(x·Aᵀ)·Bᵀ with A [rank,
// in] and B [out, rank] in BF16, s = alpha / rank, FP32 gradients. Six cuBLASLt GEMMs and no other kernel: the
// scale is the GEMMs' alpha, the up projection accumulates into the base output and the down projection's data
// gradient into the base's input gradient (beta = 1). Per-rank shapes under TP: a column-parallel base (qkv, fc1)
// splits the rank of A and the output of B, and the rank-wide intermediate x·Aᵀ stands gathered over TP (this
// rank computes its rank / tp columns; the rest is what the all-gather would bring); a row-parallel base (proj,
// fc2) splits the input of A, and B writes the sequence-parallel shard. Records "<name>_lora_a" and
// "<name>_lora_b" (forward, dgrad, wgrad), the names of dgx/llm/finetune_ops.hpp.
#pragma once

#include "context.hpp"

#include <memory>
#include <string>

namespace dgx::llm::cuda::detail {

struct LoraSpec {
  std::string name;              ///< the base linear's, e.g. "qkv"
  std::int64_t rows = 0;         ///< GEMM rows (tokens of this rank)
  std::int64_t in = 0, out = 0;  ///< the base's per-rank input and output widths
  int rank = 0;                  ///< the whole adapter's rank
  int tp = 1;
  bool column = true;  ///< column-parallel base (else row-parallel)
  float scale = 1;     ///< alpha / rank
};

class LoraAdapter {
public:
  LoraAdapter(Context& ctx, LoraSpec spec);
  ~LoraAdapter();
  LoraAdapter(const LoraAdapter&) = delete;
  LoraAdapter& operator=(const LoraAdapter&) = delete;

  /// A and B (random: A scale 1/sqrt(in), B scale 1/sqrt(rank), so that gradients flow in tests; LoRA starts B at
  /// zero), gradients (zero), GEMM descriptors.
  void allocate();
  /// Times the cuBLASLt candidates of the six GEMMs on scratch operands (untimed setup).
  void tune();

  /// y += s·(x·Aᵀ)·Bᵀ; keeps x·Aᵀ for the backward (x stays the caller's until then).
  void forward(const bf16* x, bf16* y);
  /// From the base's output gradient dy: dB, dA, and dx += (s·dy·B)·A (dx may be null: no input gradient).
  void backward(const bf16* dy, const bf16* x, bf16* dx);
  void release_saved();

  [[nodiscard]] const LoraSpec& spec() const { return spec_; }
  [[nodiscard]] std::int64_t local_rank() const { return spec_.column ? spec_.rank / spec_.tp : spec_.rank; }
  [[nodiscard]] std::int64_t a_elements() const { return local_rank() * spec_.in; }
  [[nodiscard]] std::int64_t b_elements() const { return spec_.out * spec_.rank; }
  [[nodiscard]] bf16* a() const { return a_.as<bf16>(); }
  [[nodiscard]] bf16* b() const { return b_.as<bf16>(); }
  [[nodiscard]] float* a_grad() const { return a_grad_.as<float>(); }
  [[nodiscard]] float* b_grad() const { return b_grad_.as<float>(); }

private:
  [[nodiscard]] std::int64_t up_rows() const { return spec_.column ? spec_.rows : spec_.rows / spec_.tp; }

  Context& ctx_;
  LoraSpec spec_;
  std::string down_name_, up_name_;
  DeviceBuffer a_, b_, a_grad_, b_grad_, xa_;
  std::unique_ptr<Gemm> down_, up_, up_dgrad_, up_wgrad_, down_wgrad_, down_dgrad_;
};

}  // namespace dgx::llm::cuda::detail
