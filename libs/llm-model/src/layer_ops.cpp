#include "dgx/llm/layer_ops.hpp"

#include "dgx/llm/communication.hpp"
#include "dgx/llm/memory_model.hpp"
#include "dgx/llm/model_constants.hpp"

#include <algorithm>
#include <functional>

namespace dgx::llm {

namespace {

using constants::kBf16;
using constants::kCausalTile;
constexpr std::size_t kReservedOps = 48;

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
        input_bytes_(gemm_operand_bytes(shape.precision)) {
    // A layer has a few dozen ops each way; reserving also keeps GCC 12's -Wstringop-overflow false positive
    // on vector<variant> growth quiet.
    ops_.forward.reserve(kReservedOps);
    ops_.backward.reserve(2 * kReservedOps);
  }

  OpList take() { return std::move(ops_); }
  std::vector<Op>& list(bool forward) { return forward ? ops_.forward : ops_.backward; }
  [[nodiscard]] double tokens() const { return tokens_; }
  [[nodiscard]] double sp_tokens() const { return tokens_ / shape_.tp; }
  [[nodiscard]] int tp() const { return shape_.tp; }
  [[nodiscard]] Split tp_split() const { return Split{.group = CommGroup::tp, .ways = shape_.tp}; }
  [[nodiscard]] Split expert_split() const { return Split{.group = CommGroup::etp, .ways = shape_.expert_tp()}; }
  [[nodiscard]] double hidden() const { return static_cast<double>(model_.hidden); }
  [[nodiscard]] const Software& software() const { return software_; }
  [[nodiscard]] bool fp8() const { return fp8_; }
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
  /// Flash attention of the local queries against the whole sequence, with the CP ring: each of the cp − 1
  /// steps passes a K/V block on (the backward passes K/V and returns dK/dV).
  void attention_core(bool forward) {
    const double q_len = static_cast<double>(shape_.seq_len) / shape_.cp;
    // QKᵀ runs at the query/key width, PV at the value width: their mean gives the executed FLOPs.
    const AttentionShape shape{.batch = shape_.mbs,
                               .heads = model_.heads / shape_.tp,
                               .kv_heads = std::max(1, model_.kv_heads() / shape_.tp),
                               .q_len = std::int64_t(q_len),
                               .kv_len = shape_.seq_len,
                               .head_dim = (model_.head_dim() + model_.value_dim()) / 2,
                               .mask_fraction = mask_fraction(q_len),
                               .steps = shape_.cp};
    list(forward).push_back(Op{.name = "attention",
                               .pass = forward ? Pass::forward : Pass::backward,
                               .shape = shape,
                               .part = part_,
                               .scope = scope_});
    const double kv_block =
        tokens_ * static_cast<double>(model_.head_dim() + model_.value_dim()) * model_.kv_heads() / tp() * kBf16;
    collective(forward, "cp_kv_exchange", CommGroup::cp, Collective::send_recv,
               (forward ? 1.0 : 2.0) * (shape_.cp - 1) * kv_block);
  }

  /// Executed fraction of the q×k square: causal (diagonal tiles whole), and for the share of sliding-window
  /// layers only the window (plus a tile) of keys each query sees.
  [[nodiscard]] double mask_fraction(double q_len) const {
    const double causal = 0.5 * (1.0 + kCausalTile / q_len);
    if (model_.sliding_window <= 0) {
      return causal;
    }
    const double window = std::min(causal, (model_.sliding_window + kCausalTile) / static_cast<double>(shape_.seq_len));
    return (1.0 - model_.sliding_window_layers) * causal + model_.sliding_window_layers * window;
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
  double traffic_ = 1;
  OpPart part_ = OpPart::other;
  GraphScope scope_ = GraphScope::none;
  OpList ops_;
};

constexpr LinearNames kQkv{
    "qkv", "", "cast_qkv_grad", "tp_all_gather_qkv", "tp_all_gather_qkv_wgrad", "tp_reduce_scatter_qkv_grad"};
constexpr LinearNames kProj{"proj", "cast_proj_input",       "cast_proj_grad", "tp_all_gather_proj_grad",
                            "",     "tp_reduce_scatter_proj"};
constexpr LinearNames kFc1{
    "fc1", "", "cast_fc1_grad", "tp_all_gather_fc1", "tp_all_gather_fc1_wgrad", "tp_reduce_scatter_fc1_grad"};
constexpr LinearNames kFc2{"fc2", "cast_fc2_input",       "cast_fc2_grad", "tp_all_gather_fc2_grad",
                           "",    "tp_reduce_scatter_fc2"};
constexpr LinearNames kExpertFc1{"expert_fc1",
                                 "",
                                 "cast_expert_fc1_grad",
                                 "tp_all_gather_experts",
                                 "tp_all_gather_experts_wgrad",
                                 "tp_reduce_scatter_experts_grad"};
constexpr LinearNames kSharedFc1{"shared_fc1",
                                 "",
                                 "cast_shared_fc1_grad",
                                 "tp_all_gather_shared_fc1",
                                 "tp_all_gather_shared_fc1_wgrad",
                                 "tp_reduce_scatter_shared_fc1_grad"};
constexpr LinearNames kSharedFc2{
    "shared_fc2", "cast_shared_fc2_input",       "cast_shared_fc2_grad", "tp_all_gather_shared_fc2_grad",
    "",           "tp_reduce_scatter_shared_fc2"};
constexpr LinearNames kExpertFc2{
    "expert_fc2", "cast_expert_fc2_input",    "cast_expert_fc2_grad", "tp_all_gather_experts_grad",
    "",           "tp_reduce_scatter_experts"};

constexpr LinearNames kQUp{"q_up",
                           "",
                           "cast_q_up_grad",
                           "tp_all_gather_q_latent",
                           "tp_all_gather_q_latent_wgrad",
                           "tp_reduce_scatter_q_latent_grad"};
constexpr LinearNames kKvUp{"kv_up",
                            "",
                            "cast_kv_up_grad",
                            "tp_all_gather_kv_latent",
                            "tp_all_gather_kv_latent_wgrad",
                            "tp_reduce_scatter_kv_latent_grad"};

void attention_block(Builder& b, const ModelConfig& model, bool forward) {
  const double h = b.hidden();
  const double t = b.tokens();
  const double out_width = static_cast<double>(model.attention_out_width());
  const std::function<void(bool)> steps[] = {
      [&](bool f) { b.column(f, kQkv, t, h, static_cast<double>(model.qkv_width())); },
      [&](bool f) {
        if (model.qk_norm) {
          // Per-head RMSNorm of the queries and keys (two kernels): read and write them; backward reads the input
          // and the gradient and writes the input gradient.
          const double qk = t * static_cast<double>(model.q_width() + model.head_dim() * model.kv_groups) / b.tp();
          b.memory(f, "qk_norm", qk * kBf16 * (f ? 2 : 3), 2);
        }
      },
      [&](bool f) { b.rope(f); },
      [&](bool f) { b.in_part(OpPart::attention_core, [&] { b.attention_core(f); }); },
      [&](bool f) { b.row(f, kProj, t, out_width, h); },
  };
  Builder::run(forward, steps);
}

/// Multi-head latent attention (Megatron-core MLASelfAttention with sequence parallelism): the down-projections
/// to the query latent and to the key/value latent plus the shared rotary key run on the sequence shard with
/// weights replicated over TP, their norms too; the latents are all-gathered and up-projected column-parallel
/// (heads / tp per rank), then rotary, attention and the row-parallel output projection as in GQA.
void mla_block(Builder& b, const ModelConfig& model, bool forward) {
  const double h = b.hidden();
  const double t = b.tokens();
  const double heads = model.heads;
  const double q_lora = model.q_lora_rank;
  const double kv_latent = model.kv_lora_rank + model.qk_rope_head_dim;
  const std::function<void(bool)> steps[] = {
      [&](bool f) {
        if (q_lora > 0) {
          b.replicated(f, "q_down", h, q_lora);
        }
      },
      [&](bool f) { b.replicated(f, "kv_down", h, kv_latent); },
      [&](bool f) {
        if (q_lora > 0) {
          b.narrow_norm(f, "q_norm", q_lora);
        }
      },
      [&](bool f) { b.narrow_norm(f, "kv_norm", model.kv_lora_rank); },
      [&](bool f) {
        // Without a query latent the queries come from the hidden state directly, column-parallel.
        b.in_part(OpPart::mla_up, [&] {
          b.column(f, kQUp, t, q_lora > 0 ? q_lora : h, heads * static_cast<double>(model.head_dim()));
        });
      },
      [&](bool f) {
        b.in_part(OpPart::mla_up, [&] {
          b.column(f, kKvUp, t, model.kv_lora_rank, heads * (model.qk_nope_head_dim + model.v_head_dim));
        });
      },
      [&](bool f) { b.in_part(OpPart::mla_up, [&] { b.rope(f); }); },
      [&](bool f) { b.in_part(OpPart::attention_core, [&] { b.attention_core(f); }); },
      [&](bool f) { b.row(f, kProj, t, static_cast<double>(model.attention_out_width()), h); },
  };
  Builder::run(forward, steps);
}

/// Dense MLP of inner size `ffn`: fc1 (column-parallel), activation, fc2 (row-parallel). The shared experts of
/// an MoE layer run as one such MLP of shared_experts · ffn on every token.
void dense_mlp(Builder& b, bool forward, double ffn, const LinearNames& fc1 = kFc1, const LinearNames& fc2 = kFc2) {
  const double t = b.tokens();
  const std::function<void(bool)> steps[] = {
      [&](bool f) { b.column(f, fc1, t, b.hidden(), b.fc1_out(ffn)); },
      [&](bool f) { b.activation(f, t, ffn); },
      [&](bool f) { b.row(f, fc2, t, ffn, b.hidden()); },
  };
  Builder::run(forward, steps);
}

/// MoE MLP with Megatron's all-to-all dispatcher: router on the SP shard, permute, all-to-all over the EP group
/// (folded over the stage's TP·CP·DP ranks), gather over the expert-TP group, grouped expert GEMMs (experts/ep per
/// rank, ffn/etp each, balanced routing), and back. Its communication is exposed: Transformer Engine's TP overlap
/// covers the dense linear layers only. The router (with the pre-MLP norm) and the permutation are the parts a CUDA
/// graph can capture (scopes moe_router, moe_preprocess); the rest runs eagerly after the dispatcher's host
/// synchronisation on the tokens each local expert receives.
void moe_mlp(Builder& b, const ModelConfig& model, const ShapeKey& shape, bool forward) {
  const double h = b.hidden();
  const double shard_copies = b.sp_tokens() * model.top_k;  // routed token copies leaving this rank
  const double copies = shard_copies * shape.expert_tp();   // after the expert-TP gather
  const Split experts_split = b.expert_split();
  const double groups = static_cast<double>(model.experts) / shape.ep;
  const double experts = model.experts;
  const double ffn = static_cast<double>(model.ffn);
  const double expert_tokens = copies * h * kBf16;  // the BF16 token copies the local experts see
  const auto permute = [&](bool f, std::string_view name) { b.memory(f, name, shard_copies * h * 2 * kBf16); };
  const auto all_to_all = [&](bool f, std::string_view name) {
    b.collective(f, name, CommGroup::ep, Collective::all_to_all, shard_copies * h * kBf16);
    if (shape.moe_dispatcher == MoeDispatcher::flex && !b.list(f).empty() && b.list(f).back().name == name) {
      auto& c = std::get<CollectiveShape>(b.list(f).back().shape);
      c.offdomain_share = flex_offdomain_share(c.placement, model.top_k);
      c.one_sided = true;
    }
  };
  // FP8 / FP4 grouped GEMMs need each expert's rows in whole quantization blocks: Megatron pads the routed tokens
  // expert by expert before fc1 and strips the padding after fc2 (Fp8Padding / Fp8Unpadding, one fused copy each,
  // and their mirrors in the backward) unless the router pads the routing map (moe_router_padding_for_fp8, off in
  // every recipe).
  const auto padding = [&](bool f, std::string_view name) {
    if (b.fp8()) {
      b.memory(f, name, 2 * expert_tokens);
    }
  };
  const std::function<void(bool)> steps[] = {
      [&](bool f) {
        b.in_scope(GraphScope::moe_router, [&] {
          if (f) {
            b.gemm(true, "router", Pass::forward, b.sp_tokens(), experts, h, Precision::bf16);
          } else {
            b.gemm(false, "router", Pass::dgrad, b.sp_tokens(), h, experts, Precision::bf16);
            b.gemm(false, "router", Pass::wgrad, experts, h, b.sp_tokens(), Precision::bf16);
          }
        });
      },
      [&](bool f) { b.in_scope(GraphScope::moe_preprocess, [&] { permute(f, "permute"); }); },
      [&](bool f) { all_to_all(f, "ep_dispatch"); },
      [&](bool f) { padding(f, "pad_expert_input"); },
      // The routed tokens reach the experts unnormalized: their FP8 cast is a kernel of its own per local expert
      // (shard, before the TP gather; the transpose for wgrad comes with it).
      [&](bool f) {
        if (f) {
          b.fp8_cast(true, "cast_expert_fc1_input", shard_copies * h, groups);
        }
      },
      [&](bool f) { b.column(f, kExpertFc1, copies, h, b.fc1_out(ffn), groups, experts_split); },
      [&](bool f) { b.in_part(OpPart::moe_act, [&] { b.activation(f, copies, ffn, experts_split.ways); }); },
      [&](bool f) { b.row(f, kExpertFc2, copies, ffn, h, groups, experts_split); },
      [&](bool f) {
        if (model.linear_bias) {
          // The fc2 bias, weighted by each copy's routing probability, is added expert by expert outside the GEMM
          // (Megatron's TEGroupedMLP._apply_bias): per expert a product and a sum (write, read two, write) and a
          // concatenation (read, write); the backward forms both products with the gradient and reduces them.
          b.memory(f, "expert_fc2_bias", 6 * expert_tokens, static_cast<int>((f ? 2 : 4) * groups) + (f ? 1 : 0));
        }
      },
      [&](bool f) { padding(f, "unpad_expert_output"); },
      [&](bool f) { all_to_all(f, "ep_combine"); },
      [&](bool f) { permute(f, "unpermute"); },
      // Shared experts: a dense MLP on every token (overlapped with the all-to-all in Megatron, here in series).
      [&](bool f) {
        if (model.shared_experts > 0) {
          b.in_part(OpPart::shared_experts,
                    [&] { dense_mlp(b, f, ffn * model.shared_experts, kSharedFc1, kSharedFc2); });
        }
      },
  };
  Builder::run(forward, steps);
}

/// torchao's Float8Linear casts the layer's weights to FP8 in every forward (and again, transposed, in the
/// backward): `fp8_weight_cast_bytes` per GEMM weight parameter the GPU holds, every microbatch.
void weight_casts(Builder& b, const ModelConfig& model, const ShapeKey& shape, bool dense_layer, bool forward) {
  const double bytes = b.software().fp8_weight_cast_bytes;
  if (!forward || !b.fp8() || bytes <= 0) {
    return;
  }
  const double params = layer_params_per_gpu(model, shape.tp, shape.ep, dense_layer, shape.expert_tp()).linear;
  b.memory(true, "cast_weights", params * bytes);
}

void decoder_layer(Builder& b, const ModelConfig& model, const ShapeKey& shape, bool dense_layer, bool forward) {
  const double norm_out = b.norm_output_bytes();
  const bool moe = model.moe() && !dense_layer;
  const double ffn = static_cast<double>(model.dense_mlp_ffn());
  // CUDA-graph scopes as Megatron's TransformerLayer draws them: attn is the attention half (input norm to its
  // residual), mlp a dense layer's MLP half, moe_router the pre-MLP norm and the router of an MoE layer (the rest of
  // the MoE half is tagged inside moe_mlp).
  const GraphScope mlp_half = moe ? GraphScope::moe_router : GraphScope::mlp;
  const std::function<void(bool)> steps[] = {
      [&](bool f) { weight_casts(b, model, shape, dense_layer, f); },
      [&](bool f) {
        b.in_scope(GraphScope::attn, [&] {
          b.in_part(OpPart::norm, [&] { b.norm(f, "norm_attn", norm_out); });
          b.norm_cast(f, "cast_norm_attn_output");
        });
      },
      [&](bool f) {
        b.in_scope(GraphScope::attn, [&] { model.mla() ? mla_block(b, model, f) : attention_block(b, model, f); });
      },
      [&](bool f) { b.in_scope(GraphScope::attn, [&] { b.residual(f, "residual_attn"); }); },
      [&](bool f) {
        b.in_scope(mlp_half, [&] {
          b.in_part(OpPart::norm, [&] { b.norm(f, "norm_mlp", norm_out); });
          b.in_part(moe ? OpPart::moe : OpPart::dense_mlp, [&] { b.norm_cast(f, "cast_norm_mlp_output"); });
        });
      },
      [&](bool f) {
        if (moe) {
          b.in_part(OpPart::moe, [&] { moe_mlp(b, model, shape, f); });
        } else {
          b.in_scope(GraphScope::mlp, [&] { b.in_part(OpPart::dense_mlp, [&] { dense_mlp(b, f, ffn); }); });
        }
      },
      [&](bool f) { b.in_scope(moe ? GraphScope::none : GraphScope::mlp, [&] { b.residual(f, "residual_mlp"); }); },
  };
  Builder::run(forward, steps);
}

/// Does selective recompute rerun `op` (a forward op of a decoder layer)? Megatron: the ops of the chosen
/// submodules (the MoE block's include its activation and shared experts); torchtitan's per-op policy: everything
/// but the attention kernel and the TP reduce-scatters (their outputs are kept).
bool selectively_rerun(const Op& op, const ShapeKey& shape, SelectivePolicy policy) {
  if (policy == SelectivePolicy::every_other_matmul) {
    const bool reduce_scatter = op.group == CommGroup::tp && std::holds_alternative<CollectiveShape>(op.shape) &&
                                std::get<CollectiveShape>(op.shape).collective == Collective::reduce_scatter;
    return op.part != OpPart::attention_core && !reduce_scatter;
  }
  const RecomputeModules m = shape.modules();
  const bool whole_moe = has_module(m, RecomputeModule::moe);
  switch (op.part) {
  case OpPart::attention_core: return has_module(m, RecomputeModule::core_attn);
  case OpPart::mla_up: return has_module(m, RecomputeModule::mla_up_proj);
  case OpPart::norm: return has_module(m, RecomputeModule::layernorm);
  case OpPart::dense_mlp: return has_module(m, RecomputeModule::mlp);
  case OpPart::moe: return whole_moe;
  case OpPart::moe_act: return whole_moe || has_module(m, RecomputeModule::moe_act);
  case OpPart::shared_experts: return whole_moe || has_module(m, RecomputeModule::shared_experts);
  case OpPart::other: break;
  }
  return false;
}

/// The share of a GEMM torchtitan's per-op policy reruns (its separate wq, wk, wv, wo, w1, w3, w2 are one fused
/// GEMM each here: qkv, fc1): every other aten.mm is kept, so wk of qkv, wo, w3 of fc1 are rerun and fc2 (w2) is
/// not. torchao's float8 GEMMs are aten.mm on its Float8Tensor subclass: the same in FP8.
double rerun_share(const Op& op, const ModelConfig& model) {
  if (!std::holds_alternative<GemmShape>(op.shape)) {
    return 1;
  }
  if (op.name == "qkv") {
    return static_cast<double>(model.head_dim() * model.kv_groups) / static_cast<double>(model.qkv_width());
  }
  if (op.name == "fc1") {
    return model.gated() ? 0.5 : 0.0;
  }
  return op.name == "fc2" ? 0.0 : 1.0;
}

/// Prepends the recomputed forward ops to the backward list: the whole forward for full, the selectively rerun
/// ones (selectively_rerun, at their rerun_share) for selective.
void add_recompute(OpList& ops, const ShapeKey& shape, const ModelConfig& model, SelectivePolicy policy) {
  if (shape.recompute == Recompute::none) {
    return;
  }
  std::vector<Op> rerun;
  for (const Op& op : ops.forward) {
    if (shape.recompute == Recompute::full) {
      rerun.push_back(op);
    } else if (selectively_rerun(op, shape, policy)) {
      const double share = policy == SelectivePolicy::every_other_matmul ? rerun_share(op, model) : 1;
      if (share <= 0) {
        continue;
      }
      rerun.push_back(op);
      if (share < 1) {
        auto& gemm = std::get<GemmShape>(rerun.back().shape);
        gemm.n = std::max<std::int64_t>(1, std::int64_t(static_cast<double>(gemm.n) * share));
      }
    } else {
      continue;
    }
    rerun.back().recompute = true;
  }
  ops.backward.insert(ops.backward.begin(), rerun.begin(), rerun.end());
}

}  // namespace

ShapeKey shape_key(const TrainConfig& train, const ResolvedLayout& resolved) {
  return ShapeKey{.tp = resolved.layout.tp,
                  .cp = resolved.layout.cp,
                  .ep = resolved.layout.ep,
                  .mbs = train.mbs,
                  .seq_len = resolved.seq_len,
                  .precision = train.precision,
                  .recompute = train.recompute,
                  .etp = resolved.layout.etp,
                  .recompute_modules = train.recompute_modules,
                  .moe_dispatcher = train.moe_dispatcher,
                  .cuda_graphs = train.cuda_graphs};
}

OpList transformer_layer_ops(const ModelConfig& model, const SystemProfile& system, const ShapeKey& shape,
                             bool dense_layer) {
  Builder b(model, system, shape);
  b.decoder_layer_traffic();
  decoder_layer(b, model, shape, dense_layer, true);
  decoder_layer(b, model, shape, dense_layer, false);
  OpList ops = b.take();
  add_recompute(ops, shape, model, system.software.selective);
  return ops;
}

OpList embedding_ops(const ModelConfig& model, const SystemProfile& system, const ShapeKey& shape) {
  Builder b(model, system, shape);
  const double out = b.tokens() * b.hidden() * kBf16;
  // Vocabulary-parallel lookup of every local token (masked to this rank's rows), reduce-scattered to the
  // sequence-parallel shard; learned positions add one more read-add-write on the shard.
  b.memory(true, "embedding", 2 * out + (model.rope ? 0.0 : 3 * out / b.tp()));
  b.collective(true, "tp_reduce_scatter_embedding", CommGroup::tp, Collective::reduce_scatter, out);
  // Backward: gather the gradient, build the dense V/tp × h gradient (write zeros, scatter-add) and add it into
  // the main-grad buffer (read + write), every microbatch.
  b.collective(false, "tp_all_gather_embedding_grad", CommGroup::tp, Collective::all_gather, out);
  const double table = static_cast<double>(model.vocab) / b.tp() * b.hidden();
  b.memory(false, "embedding", table * (2 * kBf16 + 2 * constants::kGradBytes) + 2 * out, 3);
  return b.take();
}

OpList output_ops(const ModelConfig& model, const SystemProfile& system, const ShapeKey& shape) {
  Builder b(model, system, shape);
  const double h = b.hidden();
  const double vocab = static_cast<double>(model.vocab);
  const double t = b.tokens();
  const double logits = t * vocab / b.tp();
  const std::function<void(bool)> steps[] = {
      [&](bool f) { b.norm(f, "final_norm", kBf16); },
      [&](bool f) {
        // The LM head is a BF16 column-parallel GEMM in every recipe (Megatron's ColumnParallelLinear, not TE).
        if (f) {
          b.collective(true, "tp_all_gather_lm_head", CommGroup::tp, Collective::all_gather, t * h * kBf16);
          b.gemm(true, "lm_head", Pass::forward, t, vocab / b.tp(), h, Precision::bf16);
          return;
        }
        b.gemm(false, "lm_head", Pass::dgrad, t, h, vocab / b.tp(), Precision::bf16);
        b.gemm(false, "lm_head", Pass::wgrad, vocab / b.tp(), h, t, Precision::bf16);
        b.collective(false, "tp_reduce_scatter_lm_head_grad", CommGroup::tp, Collective::reduce_scatter, t * h * kBf16);
      },
      [&](bool f) {
        if (f) {
          b.memory(true, "cross_entropy", logits * constants::kLossForwardBytesPerLogit, 4);
          // Max, sum and target logit of the vocabulary-parallel softmax: small all-reduces over TP.
          b.collective(true, "tp_all_reduce_loss", CommGroup::tp, Collective::all_reduce, 3 * t * 4);
          return;
        }
        b.memory(false, "cross_entropy", logits * constants::kLossBackwardBytesPerLogit, 2);
      },
  };
  Builder::run(true, steps);
  Builder::run(false, steps);
  return b.take();
}

OpList mtp_ops(const ModelConfig& model, const SystemProfile& system, const ShapeKey& shape) {
  // DeepSeek-V3's MTP module: norms of the hidden state and of the next token's embedding, their concatenation
  // projected 2h → h (column-parallel), one decoder layer of the model's kind, and its own LM head and loss.
  Builder b(model, system, shape);
  const double h = b.hidden();
  constexpr LinearNames kProjection{"mtp_projection",
                                    "",
                                    "cast_mtp_projection_grad",
                                    "tp_all_gather_mtp_projection",
                                    "tp_all_gather_mtp_projection_wgrad",
                                    "tp_reduce_scatter_mtp_projection_grad"};
  for (const bool f : {true, false}) {
    b.norm(f, "mtp_norms", 2 * b.norm_output_bytes());
    b.column(f, kProjection, b.tokens(), 2 * h, h * b.tp());
  }
  OpList ops = b.take();
  const auto append = [&ops](OpList more) {
    ops.forward.insert(ops.forward.end(), more.forward.begin(), more.forward.end());
    ops.backward.insert(ops.backward.begin(), more.backward.begin(), more.backward.end());
  };
  append(transformer_layer_ops(model, system, shape));
  append(output_ops(model, system, shape));
  return ops;
}

}  // namespace dgx::llm
