#include "dgx/llm/serve_step.hpp"

#include "dgx/llm/flops.hpp"
#include "dgx/llm/mixer_work.hpp"
#include "dgx/llm/serve_constants.hpp"
#include "dgx/llm/serve_kv.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace dgx::llm {

namespace {

/// Kernels an op launches in a serving engine (a grouped GEMM is one fused kernel, a collective one).
double launches(const Op& op) {
  struct Count {
    double operator()(const GemmShape&) const { return 1; }
    double operator()(const AttentionShape& a) const { return a.kernels(); }
    double operator()(const ScanShape& s) const { return s.kernels; }
    double operator()(const MemoryShape& m) const { return m.kernels; }
    double operator()(const CollectiveShape&) const { return 1; }
  };
  return std::visit(Count{}, op.shape);
}

/// Time of a list of ops, split into compute and communication, and the weight bytes its GEMMs read.
struct ListCost {
  double compute = 0, tp = 0, ep = 0, pp = 0, weight_bytes = 0;
  double kernels = 0;  ///< launches, every repeat counted
  int ops = 0, measured = 0;

  void add(const std::vector<Op>& ops_list, const OpTimeProvider& provider, double repeat = 1) {
    if (repeat <= 0) {
      return;
    }
    for (const Op& op : ops_list) {
      const double seconds = provider.seconds(op) * repeat;
      switch (op.group) {
      case CommGroup::tp: tp += seconds; break;
      case CommGroup::ep: ep += seconds; break;
      case CommGroup::pp: pp += seconds; break;
      default: compute += seconds; break;
      }
      if (const auto* g = std::get_if<GemmShape>(&op.shape)) {
        const double bytes = g->weight_bytes > 0 ? g->weight_bytes : gemm_operand_bytes(op.precision);
        weight_bytes += repeat * static_cast<double>(g->k) * g->n * g->groups * bytes;
      }
      kernels += repeat * launches(op);
      ++ops;
      measured += provider.source(op) == "measured" ? 1 : 0;
    }
  }
  [[nodiscard]] double total() const { return compute + tp + ep + pp; }
};

/// One stage's layers: its dense layers and its MoE layers; a model served by group, its share of each group.
ListCost stage_layers(const ModelConfig& model, const SystemProfile& system, const ServeShape& shape,
                      const StepLoad& load, const OpTimeProvider& provider) {
  const RankShape r = rank_shape(model, shape.layout);
  ListCost cost;
  if (serves_by_group(model)) {
    for (const LayerGroup& group : serve_layer_groups(model)) {
      cost.add(serve_layer_ops(serve_view(model, group), system, shape, load), provider,
               stage_share(model, group, shape.layout.pp));
    }
    return cost;
  }
  if (r.moe_layers > 0) {
    cost.add(serve_layer_ops(model, system, shape, load, LayerKind::moe), provider, r.moe_layers);
  }
  cost.add(serve_layer_ops(model, system, shape, load, LayerKind::dense), provider, r.stage_layers - r.moe_layers);
  return cost;
}

/// One whole forward pass of `model` (a draft model) with one stage.
double forward_seconds(const ModelConfig& model, const SystemProfile& system, const ServeShape& shape,
                       const StepLoad& load, const OpTimeProvider& provider) {
  ListCost cost = stage_layers(model, system, shape, load, provider);
  cost.add(serve_first_stage_ops(model, system, shape, load), provider);
  cost.add(serve_last_stage_ops(model, system, shape, load), provider);
  return cost.total();
}

/// The EAGLE-3 head: one dense decoder layer of the model's width (its dense MLP for a MoE model).
ModelConfig eagle_head(const ModelConfig& model) {
  ModelConfig head = model;
  head.layers = 1;
  head.ffn = model.dense_mlp_ffn();
  head.experts = 1;
  head.top_k = 1;
  head.shared_experts = 0;
  head.dense_layers = 0;
  return head;
}

/// Model FLOPs of one iteration in `layer`'s layers (a serve_view of count layers): 2 per active weight per token,
/// 4·hidden per attention pair within the layer's span, or the chunked scan of the prompt tokens and each decoding
/// sequence's recurrent step.
double group_flops(const ModelConfig& layer, const StepLoad& load) {
  const ParameterCount p = count_parameters(layer);
  const double linear = p.attention_per_layer + (layer.mlp_free ? 0.0 : p.active_mlp_per_layer);
  double mixer = 0;
  switch (layer.mixer) {
  case Mixer::attention: {
    const StepLoad seen = attended(layer, load);
    mixer = 4.0 * static_cast<double>(layer.hidden) * (seen.prefill_pairs + seen.decode_kv_tokens * seen.verify);
    break;
  }
  case Mixer::mamba2:
    mixer = ssd_forward(layer.mamba, 1, load.prefill_tokens).flops +
            load.decode_seqs * load.verify * ssd_step_flops(layer.mamba);
    break;
  case Mixer::linear_attention:
    mixer = delta_rule_forward(layer.linear_attention, 1, load.prefill_tokens).flops +
            load.decode_seqs * load.verify * delta_rule_step_flops(layer.linear_attention);
    break;
  case Mixer::none: break;
  }
  return layer.layers * (2.0 * linear * load.tokens() + mixer);
}

double model_flops(const ModelConfig& model, const StepLoad& load) {
  if (serves_by_group(model) || model.mixer != Mixer::attention || model.mlp_free) {
    double flops = 0;
    for (const LayerGroup& group : serve_layer_groups(model)) {
      flops += group_flops(serve_view(model, group), load);
    }
    return flops + 2.0 * static_cast<double>(model.vocab) * static_cast<double>(model.hidden) * load.logit_rows;
  }
  const ParameterCount p = count_parameters(model);
  const double dense_layers = model.layers - model.moe_layers();
  const double linear = model.layers * p.attention_per_layer + model.moe_layers() * p.active_mlp_per_layer +
                        dense_layers * (model.moe() ? p.dense_mlp_per_layer : p.active_mlp_per_layer);
  const double attention = 4.0 * static_cast<double>(model.hidden) * model.layers;  // per query-key pair
  return 2.0 * linear * load.tokens() + attention * (load.prefill_pairs + load.decode_kv_tokens * load.verify) +
         2.0 * static_cast<double>(model.vocab) * static_cast<double>(model.hidden) * load.logit_rows;
}

/// Requests one iteration schedules: its decoding ones and the prompts it carries chunks of.
double scheduled_requests(const StepLoad& load) {
  const double completing = std::max(0.0, load.logit_rows - load.decode_seqs * load.verify);
  return load.decode_seqs + std::max(completing, load.prefill_tokens > 0 ? 1.0 : 0.0);
}

}  // namespace

ServeStepModel::ServeStepModel(ModelConfig model, SystemProfile system, const OpTimeProvider* provider)
    : model_(std::move(model)), system_(std::move(system)) {
  if (provider == nullptr) {
    own_provider_ = std::make_unique<RooflineProvider>(system_, RooflineProvider::GemmFill::split_k,
                                                       RooflineProvider::Groups::one_kernel);
    SystemProfile graphs = system_;
    graphs.efficiency.kernel_overhead_us = serve_constants::kGraphKernelOverheadUs;
    graph_provider_ = std::make_unique<RooflineProvider>(std::move(graphs), RooflineProvider::GemmFill::split_k,
                                                         RooflineProvider::Groups::one_kernel);
    provider = own_provider_.get();
  }
  provider_ = provider;
}

double ServeStepModel::exposed_host_seconds(double gpu_seconds, double requests) {
  const double host = serve_constants::kHostIterationS + serve_constants::kHostPerRequestS * requests;
  return std::max(0.0, host - gpu_seconds) + serve_constants::kIterationGapS;
}

const OpTimeProvider& ServeStepModel::provider_for(const ServeShape& shape, const StepLoad& load) const {
  const double per_rank = load.decode_seqs / shape.layout.attention_dp_ranks();
  const bool graph = load.prefill_tokens <= 0 && per_rank <= shape.graph_max_batch;
  return graph && graph_provider_ ? *graph_provider_ : *provider_;
}

double ServeStepModel::draft_seconds(const ServeShape& shape, const StepLoad& load,
                                     const OpTimeProvider& provider) const {
  const SpeculativeConfig& sp = shape.speculative;
  if (!sp.active() || load.decode_seqs <= 0) {
    return 0;
  }
  // The drafter runs over one position per decoding request, draft_tokens times (autoregressively).
  const StepLoad draft{
      .decode_seqs = load.decode_seqs, .decode_kv_tokens = load.decode_kv_tokens, .logit_rows = load.decode_seqs};
  ListCost pass;
  switch (sp.kind) {
  case Speculation::mtp: {
    // DeepSeek's MTP module: the projection of [embedding; hidden] (2h → h), one decoder layer, the shared head.
    const double h = static_cast<double>(model_.hidden);
    const Op eh{.name = "mtp_eh_proj",
                .precision = Precision::bf16,
                .shape = GemmShape{.m = std::max<std::int64_t>(1, std::llround(draft.decode_seqs)),
                                   .n = model_.hidden,
                                   .k = static_cast<std::int64_t>(2 * h)}};
    pass.add({eh}, provider);
    pass.add(serve_layer_ops(model_, system_, shape, draft), provider);
    pass.add(serve_last_stage_ops(model_, system_, shape, draft), provider);
    break;
  }
  case Speculation::eagle: {
    const ModelConfig head = eagle_head(model_);
    ServeShape dense = shape;
    dense.layout.attention_dp = false;
    dense.layout.ep = 1;
    pass.add(serve_layer_ops(head, system_, dense, draft), provider);
    pass.add(serve_last_stage_ops(head, system_, dense, draft), provider);
    break;
  }
  case Speculation::draft: {
    if (!sp.draft_model) {
      return 0;
    }
    ServeShape dense{.layout = {.tp = shape.layout.attention_tp()},
                     .precision = shape.precision,
                     .kv_precision = shape.kv_precision,
                     .speculative = {}};
    return sp.draft_tokens * forward_seconds(*sp.draft_model, system_, dense, draft, provider);
  }
  case Speculation::none: break;
  }
  return sp.draft_tokens * pass.total();
}

StepCost ServeStepModel::kernels(const ServeShape& shape, const StepLoad& load, const OpTimeProvider& provider) const {
  const int pp = std::max(1, shape.layout.pp);
  const StepLoad mb = load.split(pp);
  ListCost layer = stage_layers(model_, system_, shape, mb, provider);
  ListCost first, last;
  first.add(serve_first_stage_ops(model_, system_, shape, mb), provider);
  last.add(serve_last_stage_ops(model_, system_, shape, mb), provider);

  StepCost cost;
  if (pp == 1) {
    cost.compute = layer.compute + first.compute + last.compute;
    cost.tp_comm = layer.tp + first.tp + last.tp;
    cost.ep_comm = layer.ep;
    cost.weight_bytes = layer.weight_bytes + first.weight_bytes + last.weight_bytes;
    cost.kernels = layer.kernels + first.kernels + last.kernels;
  } else {
    // The slowest stage paces the pipeline: pp micro-batches pass through it per iteration.
    const ListCost& edge = first.total() >= last.total() ? first : last;
    ListCost handoff;
    handoff.add(serve_handoff_ops(model_, system_, shape, mb), provider, pp - 1);
    cost.compute = pp * (layer.compute + edge.compute);
    cost.tp_comm = pp * (layer.tp + edge.tp);
    cost.ep_comm = pp * layer.ep;
    cost.pp_comm = handoff.pp;
    cost.weight_bytes = pp * (layer.weight_bytes + std::max(first.weight_bytes, last.weight_bytes));
    cost.kernels = pp * (layer.kernels + edge.kernels) + handoff.kernels;
  }
  cost.draft = pp * draft_seconds(shape, mb, provider);
  cost.ops = layer.ops + first.ops + last.ops;
  cost.measured_ops = layer.measured + first.measured + last.measured;
  return cost;
}

StepCost ServeStepModel::step(const ServeShape& shape, const StepLoad& load) const {
  StepCost cost = kernels(shape, load, provider_for(shape, load));
  const int pp = std::max(1, shape.layout.pp);
  const double gpu = cost.compute + cost.tp_comm + cost.ep_comm + cost.pp_comm + cost.draft;
  // Every micro-batch is an iteration of the engine's loop, with its own scheduling and sampling; with attention DP
  // each rank's executor schedules its own requests.
  const double requests = scheduled_requests(load) / (pp * shape.layout.attention_dp_ranks());
  cost.overhead = pp * exposed_host_seconds(gpu / pp, requests);
  cost.seconds = gpu + cost.overhead;
  cost.kv_bytes = kv_footprint(model_, shape).read_bytes(load.decode_seqs, load.decode_kv_tokens) /
                  shape.layout.attention_dp_ranks();
  cost.flops = model_flops(model_, load);
  return cost;
}

}  // namespace dgx::llm
