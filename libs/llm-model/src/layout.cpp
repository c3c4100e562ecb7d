#include "dgx/llm/layout.hpp"

#include "enum_names.hpp"
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

std::optional<Recompute> parse_recompute(std::string_view text) { return detail::parse_by_name(text, kAllRecomputes); }

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

}  // namespace

LayoutIssue check_shape(const ModelConfig& model, const SystemProfile& system, const TrainConfig& train) {
  const Layout& l = train.layout;
  if (l.tp < 1 || l.pp < 1 || l.cp < 1 || l.vp < 1 || l.ep < 1 || train.mbs < 1 || train.gbs < 1) {
    return LayoutIssue::non_positive;
  }
  const int seq = effective_seq(model, train);
  // In order: the first rule broken is reported.
  const std::pair<bool, LayoutIssue> rules[] = {
      {!system.supports(train.precision), LayoutIssue::precision_unsupported},
      {l.tp > system.nvlink_domain, LayoutIssue::tp_exceeds_domain},
      {!divisible(model.heads, l.tp), LayoutIssue::heads_not_divisible},
      {!divisible(model.kv_groups, l.tp), LayoutIssue::kv_groups_not_divisible},
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
  if (!divisible(1LL * dp * l.cp, l.ep)) {
    return LayoutIssue::ep_not_dividing_dp;
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
  out.gpus = gpus;
  out.dp = dp;
  out.microbatches = microbatches;
  out.seq_len = effective_seq(model, train);
  return LayoutIssue::none;
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
  case LayoutIssue::ep_on_dense:
    return "ep " + s(l.ep) + " requires a mixture-of-experts model; " + model.name + " is dense";
  case LayoutIssue::experts_not_divisible: return "experts " + s(model.experts) + " not divisible by ep " + s(l.ep);
  case LayoutIssue::seq_not_divisible_cp:
    return "seq_len " + s(seq) + " not divisible by 2×cp = " + s(2LL * l.cp) + " (load-balanced causal CP chunks)";
  case LayoutIssue::seq_not_divisible_tp:
    return "sequence parallelism needs seq_len/cp = " + s(seq / l.cp) + " divisible by tp " + s(l.tp);
  case LayoutIssue::gpus_not_divisible: return "gpus " + s(gpus) + " not divisible by tp×pp×cp = " + s(model_parallel);
  case LayoutIssue::ep_not_dividing_dp: return "ep " + s(l.ep) + " does not divide cp×dp = " + s(dp * l.cp);
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
