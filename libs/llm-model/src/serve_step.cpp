#include "dgx/llm/serve_step.hpp"

#include "dgx/llm/flops.hpp"
#include "dgx/llm/serve_constants.hpp"

#include <algorithm>
#include <utility>

namespace dgx::llm {

namespace {

/// Time of a list of ops, split into compute and communication, and the weight bytes its GEMMs read.
struct ListCost {
  double compute = 0, tp = 0, pp = 0, weight_bytes = 0;
  int ops = 0, measured = 0;

  void add(const std::vector<Op>& ops_list, const OpTimeProvider& provider, double repeat = 1) {
    for (const Op& op : ops_list) {
      const double seconds = provider.seconds(op) * repeat;
      if (op.group == CommGroup::tp) {
        tp += seconds;
      } else if (op.group == CommGroup::pp) {
        pp += seconds;
      } else {
        compute += seconds;
      }
      if (const auto* g = std::get_if<GemmShape>(&op.shape)) {
        weight_bytes += repeat * static_cast<double>(g->k) * g->n * g->groups * gemm_operand_bytes(op.precision);
      }
      ++ops;
      measured += provider.source(op) == "measured" ? 1 : 0;
    }
  }
  [[nodiscard]] double total() const { return compute + tp + pp; }
};

double model_flops(const ModelConfig& model, const StepLoad& load) {
  const ParameterCount p = count_parameters(model);
  const double linear = model.layers * (p.attention_per_layer + p.active_mlp_per_layer);
  const double attention = 4.0 * static_cast<double>(model.hidden) * model.layers;  // per query-key pair
  return 2.0 * linear * load.tokens() + attention * (load.prefill_pairs + load.decode_kv_tokens) +
         2.0 * static_cast<double>(model.vocab) * static_cast<double>(model.hidden) * load.logit_rows;
}

}  // namespace

ServeStepModel::ServeStepModel(ModelConfig model, SystemProfile system, const OpTimeProvider* provider)
    : model_(std::move(model)), system_(std::move(system)) {
  if (provider == nullptr) {
    own_provider_ = std::make_unique<RooflineProvider>(system_, RooflineProvider::GemmFill::split_k);
    provider = own_provider_.get();
  }
  provider_ = provider;
}

StepCost ServeStepModel::step(const ServeShape& shape, const StepLoad& load) const {
  const int pp = std::max(1, shape.layout.pp);
  const StepLoad mb = load.split(pp);
  const double layers = rank_shape(model_, shape.layout).stage_layers;
  ListCost layer;
  layer.add(serve_layer_ops(model_, system_, shape, mb), *provider_, layers);
  ListCost first, last;
  first.add(serve_first_stage_ops(model_, system_, shape, mb), *provider_);
  last.add(serve_last_stage_ops(model_, system_, shape, mb), *provider_);

  StepCost cost;
  if (pp == 1) {
    cost.compute = layer.compute + first.compute + last.compute;
    cost.tp_comm = layer.tp + first.tp + last.tp;
    cost.weight_bytes = layer.weight_bytes + first.weight_bytes + last.weight_bytes;
  } else {
    // The slowest stage paces the pipeline: pp micro-batches pass through it per iteration.
    const ListCost& edge = first.total() >= last.total() ? first : last;
    ListCost handoff;
    handoff.add(serve_handoff_ops(model_, system_, shape, mb), *provider_, pp - 1);
    cost.compute = pp * (layer.compute + edge.compute);
    cost.tp_comm = pp * (layer.tp + edge.tp);
    cost.pp_comm = handoff.pp;
    cost.weight_bytes = pp * (layer.weight_bytes + std::max(first.weight_bytes, last.weight_bytes));
  }
  // Every micro-batch is an iteration of the engine's loop, with its own scheduling and sampling.
  cost.overhead = pp * serve_constants::kStepOverheadS;
  cost.seconds = cost.compute + cost.tp_comm + cost.pp_comm + cost.overhead;
  cost.kv_bytes = load.decode_kv_tokens * kv_bytes_per_token(model_, shape);
  cost.flops = model_flops(model_, load);
  cost.ops = layer.ops + first.ops + last.ops;
  cost.measured_ops = layer.measured + first.measured + last.measured;
  return cost;
}

}  // namespace dgx::llm
