// The builder of a training chunk's op lists (layer_ops.hpp) that the files of each layer part share: the per-rank
// shapes of TP-sharded linear layers, norms, residuals and activations, the parallel groups' placements, the parts
// and CUDA-graph scopes ops are tagged with. Private to the model library.
#pragma once

#include "dgx/llm/communication.hpp"
#include "dgx/llm/layer_ops.hpp"
#include "dgx/llm/model_constants.hpp"

#include <functional>
#include <string_view>
#include <utility>

namespace dgx::llm::detail {

using constants::kBf16;
inline constexpr std::size_t kReservedOps = 48;

/// Names of the ops around one TP-sharded linear layer (static strings: ops keep string_views).
struct LinearNames {
  std::string_view gemm;
  std::string_view cast_input;    ///< FP8 cast + transpose of the input (row-parallel; column-parallel inputs
                                  ///< come out of a fused norm+cast)
  std::string_view cast_grad;     ///< FP8 cast + transpose of the output gradient
  std::string_view gather;        ///< all-gather of the input (column-parallel) or of the output gradient (row)
  std::string_view gather_wgrad;  ///< column-parallel: re-gather of the input for wgrad
  std::string_view scatter;       ///< reduce-scatter of the output (row) or of the input gradient (column)
};

/// How one linear layer is split: over the TP group (dense layers, attention, shared experts) or over the expert
/// tensor-parallel group (routed experts, Layout::etp).
struct Split {
  CommGroup group = CommGroup::tp;
  int ways = 1;
};

/// Builds the op lists of one chunk at the exact per-rank shapes. Methods taking `forward` append the forward
/// ops of a step to the forward list, or its backward ops to the backward list; a block's backward is its
/// steps' backwards in reverse order. Ops carry the part of the layer they belong to (set_part), which is what
/// selective recompute chooses by.
class Builder {
public:
  Builder(const ModelConfig& model, const SystemProfile& system, const ShapeKey& shape)
      : model_(model), software_(system.software), shape_(shape), tokens_(static_cast<double>(shape.local_tokens())),
        tp_group_(place_group(1, shape.tp, system.nvlink_domain)),
        cp_group_(place_group(shape.tp, shape.cp, system.nvlink_domain)),
        ep_group_(place_group(shape.expert_tp(), shape.ep, system.nvlink_domain)),
        etp_group_(place_group(1, shape.expert_tp(), system.nvlink_domain)), fp8_(casts_gemm_inputs(shape.precision)),
        input_bytes_(gemm_operand_bytes(shape.precision)), fp8_tensor_cores_(system.supports(Precision::fp8)) {
    // A layer has a few dozen ops each way; reserving also keeps GCC 12's -Wstringop-overflow false positive
    // on vector<variant> growth quiet.
    ops_.forward.reserve(kReservedOps);
    ops_.backward.reserve(2 * kReservedOps);
  }

  OpList take() { return std::move(ops_); }
  [[nodiscard]] const ModelConfig& model() const { return model_; }
  [[nodiscard]] const ShapeKey& shape() const { return shape_; }
  /// Appends `op` to the forward or backward list, tagged with the part and CUDA-graph scope being built.
  void push(bool forward, Op op) {
    op.part = part_;
    op.scope = scope_;
    list(forward).push_back(op);
  }
  std::vector<Op>& list(bool forward) { return forward ? ops_.forward : ops_.backward; }
  [[nodiscard]] double tokens() const { return tokens_; }
  [[nodiscard]] double sp_tokens() const { return tokens_ / shape_.tp; }
  [[nodiscard]] int tp() const { return shape_.tp; }
  [[nodiscard]] Split tp_split() const { return Split{.group = CommGroup::tp, .ways = shape_.tp}; }
  [[nodiscard]] Split expert_split() const { return Split{.group = CommGroup::etp, .ways = shape_.expert_tp()}; }
  [[nodiscard]] double hidden() const { return static_cast<double>(model_.hidden); }
  [[nodiscard]] const Software& software() const { return software_; }
  [[nodiscard]] bool fp8() const { return fp8_; }
  /// Whether the GPU has FP8 tensor cores (what DSA's FP8 indexer runs on; BF16 without).
  [[nodiscard]] bool fp8_tensor_cores() const { return fp8_tensor_cores_; }
  /// Output width of fc1 of an MLP of inner size `ffn`: gate and up for a gated MLP.
  [[nodiscard]] double fc1_out(double ffn) const { return ffn * (model_.mlp_matrices() - 1); }
  /// Whether the norm before a column-parallel GEMM writes the GEMM's input type itself (Transformer Engine's
  /// LayerNormLinear for FP8 and MXFP8). NVFP4 cannot be written by the norm: its two-level scaling needs the whole
  /// tensor's amax before any block is quantized, so the norm writes BF16 and a quantization kernel follows.
  [[nodiscard]] bool norm_fuses_cast() const {
    return software_.fused_norm_cast && shape_.precision != Precision::nvfp4;
  }
  /// What a fused norm writes: the GEMM input type (TE LayerNormLinear casts to FP8 in the norm kernel), else BF16.
  [[nodiscard]] double norm_output_bytes() const { return fp8_ && norm_fuses_cast() ? input_bytes_ : kBf16; }
  /// Builds `build()`'s ops as ops of `part` (then the enclosing part again).
  template <class Build> void in_part(OpPart part, Build&& build) {
    const OpPart outer = part_;
    part_ = part;
    build();
    part_ = outer;
  }
  /// Builds `build()`'s ops as ops of the CUDA-graph scope `scope` (then the enclosing scope again).
  template <class Build> void in_scope(GraphScope scope, Build&& build) {
    const GraphScope outer = scope_;
    scope_ = scope;
    build();
    scope_ = outer;
  }
  /// From now on memory-bound ops are elementwise ops of a decoder layer: the framework's elementwise traffic
  /// factor applies to them (eager PyTorch runs each step unfused; the embedding and the loss run the same
  /// kernels either way).
  void decoder_layer_traffic() { traffic_ = software_.elementwise_traffic; }

  void gemm(bool forward_list, std::string_view name, Pass pass, double m, double n, double k, Precision precision,
            double groups = 1) {
    const double accumulate = pass == Pass::wgrad ? constants::kGradBytes : 0.0;
    list(forward_list)
        .push_back(Op{.name = name,
                      .pass = pass,
                      .precision = precision,
                      .shape = GemmShape{.m = std::int64_t(m),
                                         .n = std::int64_t(n),
                                         .k = std::int64_t(k),
                                         .groups = std::int64_t(groups),
                                         .accumulate_bytes = accumulate},
                      .part = part_,
                      .scope = scope_});
  }
  void memory(bool forward, std::string_view name, double bytes, int kernels = 1) {
    list(forward).push_back(Op{.name = name,
                               .pass = forward ? Pass::forward : Pass::backward,
                               .shape = MemoryShape{.bytes = bytes * traffic_, .kernels = kernels},
                               .part = part_,
                               .scope = scope_});
  }
  void collective(bool forward, std::string_view name, CommGroup group, Collective kind, double bytes) {
    const GroupPlacement placement = group == CommGroup::tp    ? tp_group_
                                     : group == CommGroup::cp  ? cp_group_
                                     : group == CommGroup::etp ? etp_group_
                                                               : ep_group_;
    if (placement.ranks > 1 && bytes > 0) {
      list(forward).push_back(Op{.name = name,
                                 .pass = forward ? Pass::forward : Pass::backward,
                                 .group = group,
                                 .shape = CollectiveShape{.collective = kind, .bytes = bytes, .placement = placement},
                                 .part = part_,
                                 .scope = scope_});
    }
  }
  /// FP8 cast (+ transpose for the wgrad GEMM) of `elements` BF16 values: read 2, write 1 + 1; with dynamic
  /// per-tensor scales the amax reduction reads the tensor once more. NVFP4 (Transformer Engine's recipe) always
  /// reduces the amax first (its per-tensor FP32 scale above the FP8 block scales), and quantizes the column-wise
  /// copy the wgrad GEMM reads in a pass of its own, through the random Hadamard transform: one more read. A grouped
  /// GEMM's input is quantized per group (Transformer Engine's split quantize: one kernel per local expert).
  void fp8_cast(bool forward, std::string_view name, double elements, double groups = 1) {
    if (fp8_) {
      const bool nvfp4 = shape_.precision == Precision::nvfp4;
      const double amax = software_.fp8_amax_pass || nvfp4 ? kBf16 : 0.0;
      const double hadamard = nvfp4 ? kBf16 : 0.0;
      memory(forward, name, elements * (kBf16 + 2.0 * input_bytes_ + amax + hadamard), static_cast<int>(groups));
    }
  }
  /// The cast of a norm's output to the GEMM input type where the norm does not fuse it (torchao's Float8Linear
  /// casts its input itself; NVFP4 everywhere).
  void norm_cast(bool forward, std::string_view name) {
    if (forward && !norm_fuses_cast()) {
      fp8_cast(true, name, sp_tokens() * hidden());
    }
  }

  /// Column-parallel linear on `tokens` rows (all-gather of the norm-fused, already cast input; GEMM with
  /// out/tp columns). Backward: cast grad, dgrad, re-gather of the input for wgrad, wgrad, reduce-scatter.
  void column(bool forward, const LinearNames& n, double tokens, double in, double out, double groups = 1) {
    column(forward, n, tokens, in, out, groups, tp_split());
  }
  void column(bool forward, const LinearNames& n, double tokens, double in, double out, double groups, Split split) {
    const Precision p = shape_.precision;
    const double ways = split.ways;
    if (forward) {
      collective(true, n.gather, split.group, Collective::all_gather, tokens * in * input_bytes_);
      gemm(true, n.gemm, Pass::forward, tokens / groups, out / ways, in, p, groups);
      return;
    }
    fp8_cast(false, n.cast_grad, tokens * out / ways, groups);
    gemm(false, n.gemm, Pass::dgrad, tokens / groups, in, out / ways, p, groups);
    collective(false, n.gather_wgrad, split.group, Collective::all_gather, tokens * in * input_bytes_);
    gemm(false, n.gemm, Pass::wgrad, out / ways, in, tokens / groups, p, groups);
    collective(false, n.scatter, split.group, Collective::reduce_scatter, tokens * in * kBf16);
  }
  /// Row-parallel linear (cast of its input, GEMM with in/tp weight rows, reduce-scatter of the output).
  /// Backward: all-gather of the output gradient, cast grad, dgrad, wgrad.
  void row(bool forward, const LinearNames& n, double tokens, double in, double out, double groups = 1) {
    row(forward, n, tokens, in, out, groups, tp_split());
  }
  void row(bool forward, const LinearNames& n, double tokens, double in, double out, double groups, Split split) {
    const Precision p = shape_.precision;
    const double ways = split.ways;
    if (forward) {
      fp8_cast(true, n.cast_input, tokens * in / ways, groups);
      gemm(true, n.gemm, Pass::forward, tokens / groups, out, in / ways, p, groups);
      collective(true, n.scatter, split.group, Collective::reduce_scatter, tokens * out * kBf16);
      return;
    }
    collective(false, n.gather, split.group, Collective::all_gather, tokens * out * kBf16);
    fp8_cast(false, n.cast_grad, tokens * out, groups);
    gemm(false, n.gemm, Pass::dgrad, tokens / groups, in / ways, out, p, groups);
    gemm(false, n.gemm, Pass::wgrad, in / ways, out, tokens / groups, p, groups);
  }

  /// A norm on the sequence-parallel shard: forward reads BF16 and writes `out_bytes`; backward reads x and
  /// the gradient and writes dx.
  void norm(bool forward, std::string_view name, double out_bytes) {
    const double elements = sp_tokens() * hidden();
    memory(forward, name, elements * (forward ? kBf16 + out_bytes : 3 * kBf16));
  }
  /// Residual add on the shard (read two, write one); the backward adds the two gradient branches.
  void residual(bool forward, std::string_view name) { memory(forward, name, sp_tokens() * hidden() * 3 * kBf16); }
  /// MLP activation on `tokens` rows of ffn/tp at the passes Megatron runs: SwiGLU and GELU are fused
  /// (bias_swiglu / bias_gelu: read input, write output; backward reads input and gradient, writes the input
  /// gradient), squared ReLU is relu then pow, unfused, two kernels each way.
  void activation(bool forward, double tokens, double ffn, int ways = 0) {
    const double tensor = tokens * ffn / (ways > 0 ? ways : tp()) * kBf16;
    if (model_.glu_clamp > 0) {
      // Megatron clamps the fc1 output outside the fused GLU kernel: chunk, clamp both halves (read and write the
      // 2·ffn input) and concatenate them again (read and write once more); the backward runs the two clamps'
      // gradients (read the gradient and the saved input, write the input gradient).
      memory(forward, "glu_clamp", 2 * tensor * (forward ? 4 : 3), forward ? 3 : 2);
    }
    switch (model_.activation) {
    case Activation::swiglu: memory(forward, "swiglu", tensor * (forward ? 3 : 5)); break;
    case Activation::gelu: memory(forward, "gelu", tensor * (forward ? 2 : 3)); break;
    case Activation::squared_relu: memory(forward, "squared_relu", tensor * (forward ? 4 : 6), 2); break;
    }
  }
  /// Rotary embedding reads and writes q and k (the backward does the same to their gradients); MLA rotates
  /// only the decoupled parts, every query head's and the one shared key part.
  void rope(bool forward) {
    if (!model_.rope) {
      return;
    }
    const double width = model_.mla() ? static_cast<double>(model_.qk_rope_head_dim) * (model_.heads + 1)
                                      : static_cast<double>(model_.q_width() + model_.head_dim() * model_.kv_groups);
    memory(forward, "rope", tokens_ * width / tp() * 2 * kBf16);
  }
  /// A GEMM whose weights every TP rank holds whole (MLA's down-projections), on the rank's sequence shard; the
  /// backward computes dgrad and wgrad there too.
  void replicated(bool forward, std::string_view name, double in, double out) {
    const Precision p = shape_.precision;
    if (forward) {
      gemm(true, name, Pass::forward, sp_tokens(), out, in, p);
      return;
    }
    gemm(false, name, Pass::dgrad, sp_tokens(), in, out, p);
    gemm(false, name, Pass::wgrad, out, in, sp_tokens(), p);
  }
  /// A norm of `width` elements per token on the sequence shard (MLA's latent norms).
  void narrow_norm(bool forward, std::string_view name, double width) {
    memory(forward, name, sp_tokens() * width * (forward ? kBf16 + norm_output_bytes() : 3 * kBf16));
  }
  /// Runs the steps of a block in order (forward) or in reverse (backward).
  template <std::size_t N> static void run(bool forward, const std::function<void(bool)> (&steps)[N]) {
    for (std::size_t i = 0; i < N; ++i) {
      steps[forward ? i : N - 1 - i](forward);
    }
  }

private:
  const ModelConfig& model_;
  const Software& software_;
  const ShapeKey& shape_;
  double tokens_;
  GroupPlacement tp_group_, cp_group_, ep_group_, etp_group_;
  bool fp8_;
  double input_bytes_;
  bool fp8_tensor_cores_;
  double traffic_ = 1;
  OpPart part_ = OpPart::other;
  GraphScope scope_ = GraphScope::none;
  OpList ops_;
};

}  // namespace dgx::llm::detail
