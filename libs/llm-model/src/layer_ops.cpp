#include "dgx/llm/layer_ops.hpp"

#include "layer_builder.hpp"
#include "mixer_blocks.hpp"

#include "dgx/llm/memory_model.hpp"

#include <algorithm>
#include <functional>

namespace dgx::llm {

namespace {

using detail::Builder;
using detail::kBf16;
using detail::LinearNames;
using detail::Split;

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

/// The token mixer of a layer: attention (GQA or MLA), Mamba-2, Gated DeltaNet, or none.
void mixer_block(Builder& b, const ModelConfig& model, bool forward) {
  switch (model.mixer) {
  case Mixer::attention:
    model.mla() ? detail::mla_block(b, model, forward) : detail::attention_block(b, model, forward);
    break;
  case Mixer::mamba2: detail::mamba_block(b, model, forward); break;
  case Mixer::linear_attention: detail::linear_attention_block(b, model, forward); break;
  case Mixer::none: break;
  }
}

/// Names of the mixer half's norm, its cast and its residual: attention's, or a state-space / linear mixer's.
struct MixerHalfNames {
  std::string_view norm, cast, residual;
};
constexpr MixerHalfNames kAttentionHalf{"norm_attn", "cast_norm_attn_output", "residual_attn"};
constexpr MixerHalfNames kMixerHalf{"norm_mixer", "cast_norm_mixer_output", "residual_mixer"};

/// A pre-norm layer: the mixer half (norm, mixer, residual) unless the layer has no mixer, the MLP half (norm, dense
/// MLP or experts, residual) unless it has no MLP.
void decoder_layer(Builder& b, const ModelConfig& model, const ShapeKey& shape, bool dense_layer, bool forward) {
  const double norm_out = b.norm_output_bytes();
  const bool moe = model.moe() && !dense_layer;
  const double ffn = static_cast<double>(model.dense_mlp_ffn());
  const bool mixer = model.mixer != Mixer::none;
  const bool mlp = !model.mlp_free;
  const MixerHalfNames& half = model.mixer == Mixer::attention ? kAttentionHalf : kMixerHalf;
  // CUDA-graph scopes as Megatron's TransformerLayer draws them: attn is the attention half (input norm to its
  // residual; the mixer half of a Mamba-2 or linear-attention layer likewise), mlp a dense layer's MLP half,
  // moe_router the pre-MLP norm and the router of an MoE layer (the rest of the MoE half is tagged inside moe_mlp).
  const GraphScope mlp_half = moe ? GraphScope::moe_router : GraphScope::mlp;
  const std::function<void(bool)> steps[] = {
      [&](bool f) { weight_casts(b, model, shape, dense_layer, f); },
      [&](bool f) {
        if (mixer) {
          b.in_scope(GraphScope::attn, [&] {
            b.in_part(OpPart::norm, [&] { b.norm(f, half.norm, norm_out); });
            b.norm_cast(f, half.cast);
          });
        }
      },
      [&](bool f) { b.in_scope(GraphScope::attn, [&] { mixer_block(b, model, f); }); },
      [&](bool f) {
        if (mixer) {
          b.in_scope(GraphScope::attn, [&] { b.residual(f, half.residual); });
        }
      },
      [&](bool f) {
        if (mlp) {
          b.in_scope(mlp_half, [&] {
            b.in_part(OpPart::norm, [&] { b.norm(f, "norm_mlp", norm_out); });
            b.in_part(moe ? OpPart::moe : OpPart::dense_mlp, [&] { b.norm_cast(f, "cast_norm_mlp_output"); });
          });
        }
      },
      [&](bool f) {
        if (!mlp) {
          return;
        }
        if (moe) {
          b.in_part(OpPart::moe, [&] { moe_mlp(b, model, shape, f); });
        } else {
          b.in_scope(GraphScope::mlp, [&] { b.in_part(OpPart::dense_mlp, [&] { dense_mlp(b, f, ffn); }); });
        }
      },
      [&](bool f) {
        if (mlp) {
          b.in_scope(moe ? GraphScope::none : GraphScope::mlp, [&] { b.residual(f, "residual_mlp"); });
        }
      },
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
