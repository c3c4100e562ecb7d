#include "dgx/llm/layout.hpp"

#include "dgx/catalog/enum_names.hpp"
#include "layout_check.hpp"

#include <algorithm>
#include <utility>

namespace dgx::llm {

std::string_view to_string(Recompute recompute) {
  switch (recompute) {
  case Recompute::none: return "none";
  case Recompute::selective: return "selective";
  case Recompute::full: return "full";
  }
  return "?";
}

std::optional<Recompute> parse_recompute(std::string_view text) { return catalog::parse_by_name(text, kAllRecomputes); }

std::string_view to_string(RecomputeModule module) {
  switch (module) {
  case RecomputeModule::core_attn: return "core_attn";
  case RecomputeModule::mla_up_proj: return "mla_up_proj";
  case RecomputeModule::moe_act: return "moe_act";
  case RecomputeModule::layernorm: return "layernorm";
  case RecomputeModule::mlp: return "mlp";
  case RecomputeModule::moe: return "moe";
  case RecomputeModule::shared_experts: return "shared_experts";
  }
  return "?";
}

std::optional<RecomputeModule> parse_recompute_module(std::string_view text) {
  return catalog::parse_by_name(text, kAllRecomputeModules);
}

std::string_view to_string(MoeDispatcher dispatcher) { return dispatcher == MoeDispatcher::flex ? "flex" : "alltoall"; }

std::optional<MoeDispatcher> parse_moe_dispatcher(std::string_view text) {
  constexpr MoeDispatcher kAll[] = {MoeDispatcher::alltoall, MoeDispatcher::flex};
  return catalog::parse_by_name(text, kAll);
}

std::string_view to_string(GraphScope scope) {
  switch (scope) {
  case GraphScope::none: return "none";
  case GraphScope::attn: return "attn";
  case GraphScope::mlp: return "mlp";
  case GraphScope::moe_router: return "moe_router";
  case GraphScope::moe_preprocess: return "moe_preprocess";
  }
  return "?";
}

std::optional<GraphScope> parse_graph_scope(std::string_view text) {
  return catalog::parse_by_name(text, kCapturableScopes);
}

std::string scopes_label(GraphScopes scopes) {
  std::string out;
  for (const GraphScope s : kCapturableScopes) {
    if (has_scope(scopes, s)) {
      out += (out.empty() ? "" : ", ") + std::string(to_string(s));
    }
  }
  return out.empty() ? "none" : out;
}

std::string modules_label(RecomputeModules modules) {
  std::string out;
  for (const RecomputeModule m : kAllRecomputeModules) {
    if (has_module(modules, m)) {
      out += (out.empty() ? "" : ", ") + std::string(to_string(m));
    }
  }
  return out.empty() ? "none" : out;
}

StageParts stage_parts(const ModelConfig& model, const TrainConfig& train, const ResolvedLayout& resolved, int stage) {
  const int pp = resolved.layout.pp;
  const bool first = stage == 0;
  const bool last = stage == pp - 1;
  const StageLayers& s = resolved.stages;
  StageParts parts;
  parts.layers = first ? s.first : last ? s.last : s.middle;
  parts.leading_dense = first && model.moe() ? std::min(model.dense_layers, parts.layers) : 0;
  parts.embedding = first;
  parts.output = last;
  parts.mtp_layers = last ? (train.mtp_layers >= 0 ? train.mtp_layers : model.mtp_layers) : 0;
  return parts;
}

namespace detail {

namespace {

bool divisible(long long value, long long by) { return by > 0 && value % by == 0; }

int effective_seq(const ModelConfig& model, const TrainConfig& train) {
  return train.seq_len > 0 ? train.seq_len : model.seq_len;
}

LayoutIssue check_layers(const ModelConfig& model, const TrainConfig& train, ResolvedLayout& out) {
  const Layout& l = train.layout;
  if (l.pp > model.layers) {
    return LayoutIssue::pp_exceeds_layers;
  }
  if (l.vp > 1 && l.pp == 1) {
    return LayoutIssue::vp_without_pp;
  }
  auto stages = split_pipeline(model.layers, l.pp, l.vp, train.pipeline_split);
  if (!stages && train.pipeline_split == PipelineSplit::automatic) {
    stages = split_pipeline(model.layers, l.pp, l.vp, PipelineSplit::custom);  // any published layout string
  }
  if (!stages) {
    const bool without_vp = split_pipeline(model.layers, l.pp, 1, train.pipeline_split).has_value();
    return without_vp ? LayoutIssue::vp_not_dividing_stage : LayoutIssue::layers_not_splittable;
  }
  // Megatron keeps at least one layer's activations on the GPU of every stage.
  if (train.offload_layers < kAutoOffload ||
      train.offload_layers >= std::max(1, std::min(stages->first, stages->last))) {
    return LayoutIssue::offload_exceeds_layers;
  }
  out.stages = *stages;
  return LayoutIssue::none;
}

/// What the requested split rule asks of the layers, for messages.
std::string split_rule(PipelineSplit split) {
  switch (split) {
  case PipelineSplit::even: return "pipeline_split even needs pp and vp to divide the layers evenly";
  case PipelineSplit::uneven:
    return "pipeline_split uneven needs ceil(layers/pp) layers per middle stage to leave the first and last stage at "
           "least one layer each";
  case PipelineSplit::embedding_loss: return "pipeline_split embedding-loss needs pp×vp to divide layers + 2";
  case PipelineSplit::custom: return "pipeline_split custom needs every middle stage to hold a layer per chunk";
  case PipelineSplit::automatic: break;
  }
  return "pp must divide the layers, pp×vp divide layers + 2 (embedding and loss counted as layers), or "
         "ceil(layers/pp) layers per middle stage leave the first and last stage at least one layer each";
}

/// The layer kinds of a model that TP and CP split: Megatron's MambaMixer shards heads and groups over TP, its
/// GatedDeltaNet key and value heads; no layer kind but attention is modelled under context parallelism.
struct MixerKinds {
  bool scan = false;                 ///< a Mamba-2 or linear-attention layer
  bool heads_not_divisible = false;  ///< by tp
};
MixerKinds mixer_kinds(const ModelConfig& model, int tp) {
  MixerKinds kinds;
  for (const LayerGroup& group : model.layer_mix()) {
    const ModelConfig layer = model.layer_view(group);
    if (layer.mixer == Mixer::mamba2) {
      kinds.scan = true;
      kinds.heads_not_divisible |= !divisible(layer.mamba.heads, tp) || !divisible(layer.mamba.groups, tp);
    } else if (layer.mixer == Mixer::linear_attention) {
      kinds.scan = true;
      const LinearAttentionSizes& la = layer.linear_attention;
      kinds.heads_not_divisible |= !divisible(la.key_heads, tp) || !divisible(la.value_heads, tp);
    } else if (layer.mixer == Mixer::attention) {
      kinds.heads_not_divisible |= !divisible(layer.kv_groups, tp);
    }
  }
  return kinds;
}

}  // namespace

int folded_etp(const Layout& l, int dp) {
  const long long ranks = 1LL * l.tp * l.cp * dp;  // the ranks of a stage the experts fold over
  if (l.etp > 0) {
    return divisible(ranks, 1LL * l.ep * l.etp) ? l.etp : 0;
  }
  for (int etp = l.tp; etp >= 1; --etp) {
    if (l.tp % etp == 0 && divisible(ranks, 1LL * l.ep * etp)) {
      return etp;
    }
  }
  return 0;
}

LayoutIssue check_shape(const ModelConfig& model, const SystemProfile& system, const TrainConfig& train) {
  const Layout& l = train.layout;
  if (l.tp < 1 || l.pp < 1 || l.cp < 1 || l.vp < 1 || l.ep < 1 || l.etp < 0 || train.mbs < 1 || train.gbs < 1) {
    return LayoutIssue::non_positive;
  }
  const int seq = effective_seq(model, train);
  const Software& sw = system.software;
  const bool block_scaled = train.precision == Precision::mxfp8 || train.precision == Precision::nvfp4;
  const bool modules_chosen =
      train.recompute == Recompute::selective && train.recompute_modules != kDefaultRecomputeModules;
  const MixerKinds mixers =
      model.grouped() || model.mixer != Mixer::attention ? mixer_kinds(model, l.tp) : MixerKinds{};
  // In order: the first rule broken is reported.
  const std::pair<bool, LayoutIssue> rules[] = {
      // The checkpoint formats (fp8-block, mxfp4) are serving formats: no training GEMM runs in them.
      {!is_gemm_precision(train.precision) || !system.supports(train.precision), LayoutIssue::precision_unsupported},
      {block_scaled && !sw.block_scaled_formats, LayoutIssue::framework_precision},
      {model.moe() && !sw.expert_parallel, LayoutIssue::framework_moe},
      {modules_chosen && !sw.recompute_modules, LayoutIssue::framework_recompute_modules},
      {train.offload_layers > 0 && !sw.activation_offload, LayoutIssue::framework_offload},
      {train.ep_overlap && !sw.ep_overlap, LayoutIssue::framework_ep_overlap},
      {train.ep_overlap && !model.moe(), LayoutIssue::ep_overlap_on_dense},
      {model.moe() && l.etp > system.nvlink_domain, LayoutIssue::etp_exceeds_domain},
      {model.moe() && l.etp > 0 && !divisible(model.ffn, l.etp), LayoutIssue::ffn_not_divisible_etp},
      {l.tp > system.nvlink_domain, LayoutIssue::tp_exceeds_domain},
      {!divisible(model.heads, l.tp), LayoutIssue::heads_not_divisible},
      {!divisible(model.kv_groups, l.tp), LayoutIssue::kv_groups_not_divisible},
      {mixers.heads_not_divisible, LayoutIssue::mixer_heads_not_divisible},
      {mixers.scan && l.cp > 1, LayoutIssue::cp_with_scan},
      {!model.moe() && l.ep > 1, LayoutIssue::ep_on_dense},
      {!divisible(model.experts, l.ep), LayoutIssue::experts_not_divisible},
      {l.cp > 1 && !divisible(seq, 2LL * l.cp), LayoutIssue::seq_not_divisible_cp},
      {!divisible(seq / l.cp, l.tp), LayoutIssue::seq_not_divisible_tp},
  };
  for (const auto& [broken, issue] : rules) {
    if (broken) {
      return issue;
    }
  }
  return LayoutIssue::none;
}

LayoutIssue check_layout(const ModelConfig& model, const SystemProfile& system, int gpus, const TrainConfig& train,
                         ResolvedLayout& out) {
  const Layout& l = train.layout;
  if (gpus < 1) {
    return LayoutIssue::non_positive;
  }
  if (const LayoutIssue issue = check_shape(model, system, train); issue != LayoutIssue::none) {
    return issue;
  }
  const long long model_parallel = 1LL * l.tp * l.pp * l.cp;
  if (!divisible(gpus, model_parallel)) {
    return LayoutIssue::gpus_not_divisible;
  }
  const int dp = static_cast<int>(gpus / model_parallel);
  const int etp = model.moe() ? folded_etp(l, dp) : 0;
  if (model.moe() && etp == 0) {
    return LayoutIssue::ep_not_folding;
  }
  if (dp * l.cp > 1 && !train.fsdp && train.distributed_optimizer && !system.software.distributed_optimizer) {
    return LayoutIssue::framework_distributed_optimizer;
  }
  if (train.ep_overlap && l.pp > 1 && l.vp == 1) {
    return LayoutIssue::ep_overlap_needs_interleaving;
  }
  if (const LayoutIssue issue = check_layers(model, train, out); issue != LayoutIssue::none) {
    return issue;
  }
  if (!divisible(train.gbs, 1LL * dp * train.mbs)) {
    return LayoutIssue::gbs_not_divisible;
  }
  const int microbatches = static_cast<int>(train.gbs / (1LL * dp * train.mbs));
  if (l.vp > 1 && !divisible(microbatches, l.pp)) {
    return LayoutIssue::microbatches_not_divisible_pp;
  }
  out.layout = l;
  out.layout.etp = etp;
  out.gpus = gpus;
  out.dp = dp;
  out.edp = model.moe() ? l.tp * l.cp * dp / (etp * l.ep) : dp * l.cp;
  out.microbatches = microbatches;
  out.seq_len = effective_seq(model, train);
  return LayoutIssue::none;
}

std::string framework_limit(LayoutIssue issue, const ModelConfig& model, const SystemProfile& system,
                            const TrainConfig& train) {
  const std::string framework = system.software.framework.empty() ? "the framework" : system.software.framework;
  const std::string head = "framework " + framework + " cannot express this configuration: ";
  switch (issue) {
  case LayoutIssue::framework_precision:
    return head + "precision " + std::string(to_string(train.precision)) +
           " needs block-scaled MXFP8 / NVFP4 recipes, which it has no recipe for (its FP8 is per-tensor; use fp8 or "
           "bf16)";
  case LayoutIssue::framework_moe:
    return head + "model " + model.name +
           " is a mixture-of-experts model, and it has no MoE layers or expert "
           "parallelism (parallel.ep)";
  case LayoutIssue::framework_recompute_modules:
    return head + "train.recompute_modules " + modules_label(train.recompute_modules) +
           " chooses Megatron submodules to recompute; its selective recompute is a fixed per-op policy (leave "
           "recompute_modules at its default, core_attn)";
  case LayoutIssue::framework_offload:
    return head + "train.offload_layers " + std::to_string(train.offload_layers) +
           " is Megatron's activation offloading (cpu_offloading_num_layers), which it does not have";
  case LayoutIssue::framework_ep_overlap:
    return head + "parallel.ep_overlap is Megatron's overlap_moe_expert_parallel_comm, which it does not have";
  case LayoutIssue::framework_distributed_optimizer:
    return head + "parallel.distributed_optimizer (Megatron's ZeRO-1, the default without parallel.fsdp) is not how "
                  "it shards data-parallel state: it shards with FSDP (set parallel.fsdp = true) or replicates (DDP, "
                  "parallel.distributed_optimizer = false)";
  default: break;
  }
  return head + "unsupported";
}

std::string describe(LayoutIssue issue, const ModelConfig& model, const SystemProfile& system, int gpus,
                     const TrainConfig& train) {
  const Layout& l = train.layout;
  const auto s = [](long long v) { return std::to_string(v); };
  const int seq = effective_seq(model, train);
  const long long model_parallel = 1LL * l.tp * l.pp * l.cp;
  const long long dp = model_parallel > 0 ? gpus / model_parallel : 0;
  const auto stages = split_pipeline(model.layers, l.pp, 1, train.pipeline_split);
  switch (issue) {
  case LayoutIssue::none: return "";
  case LayoutIssue::non_positive:
    return "gpus, tp, pp, cp, vp, ep, mbs and gbs must all be at least 1 (got gpus " + s(gpus) + ", tp " + s(l.tp) +
           ", pp " + s(l.pp) + ", cp " + s(l.cp) + ", vp " + s(l.vp) + ", ep " + s(l.ep) + ", mbs " + s(train.mbs) +
           ", gbs " + s(train.gbs) + ")";
  case LayoutIssue::precision_unsupported:
    return system.name + " does not support " + std::string(to_string(train.precision)) + " GEMMs";
  case LayoutIssue::tp_exceeds_domain:
    return "TP " + s(l.tp) + " exceeds the NVLink domain of " + s(system.nvlink_domain) + " on " + system.name;
  case LayoutIssue::heads_not_divisible: return "heads " + s(model.heads) + " not divisible by tp " + s(l.tp);
  case LayoutIssue::kv_groups_not_divisible:
    return "kv groups " + s(model.kv_groups) + " not divisible by tp " + s(l.tp);
  case LayoutIssue::mixer_heads_not_divisible:
    return "tp " + s(l.tp) + " does not divide the heads of every layer kind of " + model.name +
           " (Mamba-2 heads and groups, linear-attention key and value heads, each group's KV heads)";
  case LayoutIssue::cp_with_scan:
    return "context parallelism (cp " + s(l.cp) +
           ") of Mamba-2 and linear-attention layers is not modelled: their "
           "chunked scans pass a state from one CP rank's tokens to the next";
  case LayoutIssue::ep_on_dense:
    return "ep " + s(l.ep) + " requires a mixture-of-experts model; " + model.name + " is dense";
  case LayoutIssue::experts_not_divisible: return "experts " + s(model.experts) + " not divisible by ep " + s(l.ep);
  case LayoutIssue::seq_not_divisible_cp:
    return "seq_len " + s(seq) + " not divisible by 2×cp = " + s(2LL * l.cp) + " (load-balanced causal CP chunks)";
  case LayoutIssue::seq_not_divisible_tp:
    return "sequence parallelism needs seq_len/cp = " + s(seq / l.cp) + " divisible by tp " + s(l.tp);
  case LayoutIssue::gpus_not_divisible: return "gpus " + s(gpus) + " not divisible by tp×pp×cp = " + s(model_parallel);
  case LayoutIssue::ep_not_folding:
    return l.etp > 0 ? "ep " + s(l.ep) + " × etp " + s(l.etp) + " = " + s(1LL * l.ep * l.etp) +
                           " does not divide tp×cp×dp = " + s(dp * l.cp * l.tp) +
                           " (the experts fold their EP and expert-TP groups over the TP, CP and DP ranks of a stage)"
                     : "ep " + s(l.ep) + " does not divide tp×cp×dp = " + s(dp * l.cp * l.tp) +
                           " (the experts fold their EP groups over the TP, CP and DP ranks of a stage)";
  case LayoutIssue::etp_exceeds_domain:
    return "etp " + s(l.etp) + " exceeds the NVLink domain of " + s(system.nvlink_domain) + " on " + system.name;
  case LayoutIssue::ffn_not_divisible_etp: return "expert ffn " + s(model.ffn) + " not divisible by etp " + s(l.etp);
  case LayoutIssue::ep_overlap_on_dense:
    return "ep_overlap hides the expert all-to-all of a mixture-of-experts model; " + model.name + " is dense";
  case LayoutIssue::ep_overlap_needs_interleaving:
    return "ep_overlap (Megatron's overlap_moe_expert_parallel_comm) needs pp 1 or an interleaved pipeline (vp > 1); "
           "got pp " +
           s(l.pp) + " vp 1";
  case LayoutIssue::framework_precision:
  case LayoutIssue::framework_moe:
  case LayoutIssue::framework_recompute_modules:
  case LayoutIssue::framework_offload:
  case LayoutIssue::framework_ep_overlap:
  case LayoutIssue::framework_distributed_optimizer: return framework_limit(issue, model, system, train);
  case LayoutIssue::pp_exceeds_layers: return "pp " + s(l.pp) + " exceeds the " + s(model.layers) + " layers";
  case LayoutIssue::layers_not_splittable:
    return "layers " + s(model.layers) + " cannot be split over pp " + s(l.pp) + " (" +
           split_rule(train.pipeline_split) + ")";
  case LayoutIssue::vp_without_pp: return "vp " + s(l.vp) + " requires pp > 1";
  case LayoutIssue::vp_not_dividing_stage:
    return "vp " + s(l.vp) + " requires layers/pp divisible by vp (" + s(model.layers) + " layers over pp " + s(l.pp) +
           " give stages of " + s(stages ? stages->middle : 0) + " layers" +
           (stages && stages->first != stages->middle ? ", first " + s(stages->first) : "") +
           (stages && stages->last != stages->middle ? ", last " + s(stages->last) : "") + "; " +
           split_rule(train.pipeline_split) + ")";
  case LayoutIssue::offload_exceeds_layers:
    return "offload_layers " + s(train.offload_layers) + " must be -1 (auto), 0 or more and below the " +
           s(stages ? std::min(stages->first, stages->last) : model.layers) +
           " layers of the smallest edge stage (one layer's activations stay on the GPU)";
  case LayoutIssue::gbs_not_divisible:
    return "gbs " + s(train.gbs) + " is not divisible by dp×mbs = " + s(dp * train.mbs);
  case LayoutIssue::microbatches_not_divisible_pp:
    return "the interleaved schedule (vp " + s(l.vp) + ") needs the microbatches per pipeline (" +
           s(train.gbs / std::max(1LL, dp * train.mbs)) + ") divisible by pp " + s(l.pp);
  }
  return "invalid configuration";
}

}  // namespace detail

Expected<ResolvedLayout> resolve_layout(const ModelConfig& model, const SystemProfile& system, int gpus,
                                        const TrainConfig& train) {
  ResolvedLayout out;
  const detail::LayoutIssue issue = detail::check_layout(model, system, gpus, train, out);
  if (issue != detail::LayoutIssue::none) {
    return Error{detail::describe(issue, model, system, gpus, train)};
  }
  return out;
}

}  // namespace dgx::llm
