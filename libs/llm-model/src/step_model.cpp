#include "dgx/llm/step_model.hpp"

#include "data_parallel.hpp"
#include "host_bound.hpp"

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/communication.hpp"
#include "dgx/llm/finetune_memory.hpp"
#include "dgx/llm/finetune_ops.hpp"
#include "dgx/llm/flops.hpp"
#include "dgx/llm/model_constants.hpp"
#include "dgx/llm/pipeline.hpp"
#include "dgx/llm/stragglers.hpp"

#include <dgx/sdk/text.hpp>

#include <algorithm>
#include <cmath>

namespace dgx::llm {

namespace {

PassCost pass_cost(const std::vector<Op>& ops, const OpTimeProvider& provider, const Software& software,
                   Precision precision, GraphScopes graphs, bool forward) {
  PassCost cost;
  double attention = 0;
  bool moe = false;
  std::vector<double> seconds;
  seconds.reserve(ops.size());
  for (const Op& op : ops) {
    const double t = provider.seconds(op);
    seconds.push_back(t);
    moe = moe || op.part == OpPart::moe;
    switch (op.group) {
    case CommGroup::tp: cost.tp += t; break;
    case CommGroup::cp: cost.cp += t; break;
    case CommGroup::ep:
    case CommGroup::etp: cost.ep += t; break;
    default:
      cost.compute += t;
      attention += std::holds_alternative<AttentionShape>(op.shape) ? t : 0.0;
      break;
    }
  }
  // TP: userbuffer overlap hides tp_overlap of it. CP: the ring step's transfer hides behind the attention
  // of the block already there. EP: the all-to-all waits for the router and blocks the experts, exposed.
  const double tp_hidden = cost.tp * software.tp_overlap[static_cast<std::size_t>(precision)];
  cost.tp = detail::overlapped(cost.tp, tp_hidden, 0, software.overlap_slowdown);
  cost.cp = detail::overlapped(cost.cp, attention, 0, software.overlap_slowdown);
  // A dropless MoE layer synchronises the host with the GPU every forward (host_bound.hpp); elsewhere the host
  // keeps ahead of the GPU.
  if (moe) {
    cost.host = detail::host_bound_seconds(ops, seconds, software, graphs, forward);
  }
  return cost;
}

/// Adds `times` × each part of `cost` to `sum`.
void add_scaled(ChunkCost& sum, const ChunkCost& cost, double times) {
  for (auto [to, from] : {std::pair{&sum.forward, &cost.forward}, std::pair{&sum.backward, &cost.backward}}) {
    to->compute += times * from->compute;
    to->tp += times * from->tp;
    to->cp += times * from->cp;
    to->ep += times * from->ep;
    to->host += times * from->host;
  }
}

/// The shape in two words: tp, etp, cp, ep, mbs | seq_len, dispatcher, precision, recompute, graphs, recompute modules.
PackedShape pack(const ShapeKey& k) {
  const auto u = [](auto v) { return static_cast<std::uint64_t>(v); };
  const std::uint64_t first = u(k.tp) << 48 | u(k.expert_tp()) << 40 | u(k.cp) << 32 | u(k.ep) << 16 | u(k.mbs);
  const std::uint64_t second = u(k.seq_len) << 32 | u(k.moe_dispatcher) << 28 | u(k.precision) << 24 |
                               u(k.recompute) << 16 | u(k.cuda_graphs) << 8 | u(k.modules());
  return PackedShape{.first = first, .second = second};
}

using dgx::sdk::text::gib_number;

std::string memory_error(const MemoryBreakdown& m, const SystemProfile& system, std::string_view stage) {
  return "needs " + gib_number(m.total()) + " GiB per GPU, " + system.name + " has " + gib_number(m.capacity) +
         " GiB (" + std::string(stage) + " stage: weights " + gib_number(m.weights) + ", gradients " +
         gib_number(m.gradients) + ", optimizer " + gib_number(m.optimizer) + ", fp8 weight cache " +
         gib_number(m.fp8_weight_cache) + ", activations " + gib_number(m.activations) + ", transient " +
         gib_number(m.transient) + ", reserve " + gib_number(m.reserve) + ")";
}

/// Exposed pipeline send/recv per microbatch on one stage: each of the v chunks receives its input and sends
/// its output forward, and the gradients backward. 1F1B blocks on them; the interleaved schedule overlaps
/// them with the next chunk's compute.
double pipeline_comm(const ModelConfig& model, const SystemProfile& system, const ResolvedLayout& r,
                     const TrainConfig& train, double chunk_forward) {
  const Layout& l = r.layout;
  if (l.pp == 1) {
    return 0;
  }
  // With sequence parallelism each TP rank sends its 1/tp shard of the [s/cp, mbs, h] activation.
  const double bytes = static_cast<double>(train.mbs) * r.seq_len / l.cp * model.hidden / l.tp * 2.0;
  const GroupPlacement placement = place_group(l.tp * l.cp * r.dp, l.pp, system.nvlink_domain);
  const double transfer = collective_seconds(system, Collective::send_recv, bytes, placement);
  const double exposed =
      l.vp == 1 ? transfer : detail::overlapped(transfer, chunk_forward, 0, system.software.overlap_slowdown);
  return 2.0 * l.vp * exposed;
}

}  // namespace

ChunkCost cost_of(const OpList& ops, const OpTimeProvider& provider, const Software& software, Precision precision,
                  GraphScopes graphs) {
  return ChunkCost{.forward = pass_cost(ops.forward, provider, software, precision, graphs, true),
                   .backward = pass_cost(ops.backward, provider, software, precision, graphs, false)};
}

StepModel::StepModel(ModelConfig model, SystemProfile system, const OpTimeProvider* provider)
    : model_(std::move(model)), system_(std::move(system)) {
  if (provider == nullptr) {
    own_provider_ = std::make_unique<RooflineProvider>(system_);
    provider = own_provider_.get();
  }
  provider_ = provider;
}

const ShapeCost& StepModel::shape_cost(const ShapeKey& key) {
  const PackedShape packed = pack(key);
  if (const auto found = cache_.find(packed); found != cache_.end()) {
    return found->second;
  }
  OpList layer = model_.grouped() ? OpList{} : transformer_layer_ops(model_, system_, key);
  OpList embedding = embedding_ops(model_, system_, key);
  OpList output = output_ops(model_, system_, key);
  // Only MoE models with leading dense layers and models with MTP modules time the extra chunks.
  const bool leading_dense = model_.moe() && model_.dense_layers > 0;
  OpList dense_layer = leading_dense ? transformer_layer_ops(model_, system_, key, true) : OpList{};
  OpList mtp = model_.mtp_layers > 0 ? mtp_ops(model_, system_, key) : OpList{};
  if (finetune_) {
    // The MTP module (DeepSeek-V3) keeps pretraining's ops: fine-tuning recipes train without it.
    apply_finetune(layer, StepChunk::layer, model_, system_, key, *finetune_);
    apply_finetune(embedding, StepChunk::embedding, model_, system_, key, *finetune_);
    apply_finetune(output, StepChunk::output, model_, system_, key, *finetune_);
    if (leading_dense) {
      apply_finetune(dense_layer, StepChunk::layer, model_, system_, key, *finetune_);
    }
  }
  const auto chunk = [&](const OpList& ops) {
    return cost_of(ops, *provider_, system_.software, key.precision, key.cuda_graphs);
  };
  // A grouped model's mean layer: each group's cost weighted by its share of the layers, so that a stage of n layers
  // costs n × count/layers of each group (the groups' order is not modelled).
  std::vector<OpList> group_layers;
  ChunkCost layer_cost;
  if (model_.grouped()) {
    for (const LayerGroup& group : model_.layer_groups) {
      group_layers.push_back(transformer_layer_ops(model_.layer_view(group), system_, key));
      add_scaled(layer_cost, chunk(group_layers.back()), static_cast<double>(group.count) / model_.layers);
    }
  } else {
    layer_cost = chunk(layer);
  }
  ShapeCost cost{.layer = layer_cost,
                 .embedding = chunk(embedding),
                 .output = chunk(output),
                 .dense_layer = leading_dense ? chunk(dense_layer) : layer_cost,
                 .mtp = chunk(mtp),
                 .memory = shape_memory(model_, key, system_.software.selective)};
  std::vector<const OpList*> lists = {&layer, &embedding, &output, &dense_layer, &mtp};
  for (const OpList& group : group_layers) {
    lists.push_back(&group);
  }
  for (const OpList* list : lists) {
    for (const auto* ops : {&list->forward, &list->backward}) {
      for (const Op& op : *ops) {
        ++cost.ops;
        cost.measured_ops += provider_->source(op) == "measured" ? 1 : 0;
      }
    }
  }
  return cache_.emplace(packed, cost).first->second;
}

StepBreakdown StepModel::step_breakdown(const ResolvedLayout& r, const TrainConfig& train, const ShapeCost& c) const {
  const Layout& l = r.layout;
  const StageLayers& s = r.stages;
  const double chunk_forward = c.layer.forward.total() * s.middle / l.vp;
  const double pp_comm = pipeline_comm(model_, system_, r, train, chunk_forward);

  // Per-microbatch cost of a stage, by category, and its forward and backward compute.
  struct Stage {
    PassCost cost;
    double forward = 0, backward = 0;
    double total = 0;
  };
  const auto stage = [&](int index) {
    const StageParts parts = stage_parts(model_, train, r, index);
    Stage out;
    const auto add = [&](const ChunkCost& chunk, double times) {
      for (const PassCost* pass : {&chunk.forward, &chunk.backward}) {
        out.cost.compute += times * pass->compute;
        out.cost.tp += times * pass->tp;
        out.cost.cp += times * pass->cp;
        out.cost.ep += times * pass->ep;
        out.cost.host += times * pass->host;
      }
      out.forward += times * chunk.forward.total();
      out.backward += times * chunk.backward.total();
    };
    add(c.layer, parts.layers - parts.leading_dense);
    add(c.dense_layer, parts.leading_dense);
    add(c.embedding, parts.embedding ? 1.0 : 0.0);
    add(c.output, parts.output ? 1.0 : 0.0);
    add(c.mtp, parts.mtp_layers);
    if (train.ep_overlap) {
      // Megatron's overlap_moe_expert_parallel_comm: the expert all-to-all of one microbatch runs under the compute
      // of the microbatch it is scheduled with (the forward of one beside the backward of another).
      out.cost.ep = detail::overlapped(out.cost.ep, out.cost.compute, 0, system_.software.overlap_slowdown);
    }
    out.total = out.cost.total() + pp_comm;
    return out;
  };
  const Stage first = stage(0);
  const Stage last = l.pp == 1 ? first : stage(l.pp - 1);
  const Stage middle = l.pp > 2 ? stage(1) : last;
  const Stage* slowest = &first;
  for (const Stage* candidate : {&last, &middle}) {
    const bool exists = candidate != &middle || l.pp > 2;
    if (exists && candidate->total > slowest->total) {
      slowest = candidate;
    }
  }
  const double mean = l.pp == 1 ? first.total : (first.total + last.total + (l.pp - 2) * middle.total) / l.pp;

  const double m = r.microbatches;
  StepBreakdown b;
  b.compute = m * slowest->cost.compute;
  b.tp_comm = m * slowest->cost.tp;
  b.cp_comm = m * slowest->cost.cp;
  b.ep_comm = m * slowest->cost.ep;
  b.host = m * slowest->cost.host;

  b.pp_comm = m * pp_comm;
  b.bubble = pipeline_seconds(l.pp, l.vp, r.microbatches, slowest->total, mean) - m * slowest->total;

  ChunkCost first_stage_chunk;
  first_stage_chunk.forward.compute = first.forward;
  first_stage_chunk.backward.compute = first.backward;
  const detail::DataParallelCost dp =
      detail::data_parallel(model_, system_, r, train, first_stage_chunk, c.memory, finetune_);
  b.dp_comm = dp.comm;
  b.optimizer = dp.optimizer;
  b.offload = detail::offload_seconds(system_, r, train, first_stage_chunk, c.memory);
  b.stragglers = straggler_fraction(system_.efficiency.gpu_speed_cv, r.gpus) * (b.compute + b.bubble);
  return b;
}

Expected<Projection> StepModel::project(int gpus, const TrainConfig& requested, const std::optional<Price>& price,
                                        MemoryCheck memory_check) {
  TrainConfig train = requested;
  auto resolved = resolve_layout(model_, system_, gpus, train);
  if (!resolved) {
    return resolved.error();
  }
  const ResolvedLayout& r = *resolved;
  if (finetune_) {
    if (const auto checked = check_finetune(model_, *finetune_, r.seq_len); !checked) {
      return checked.error();
    }
    if (finetune_->lora_method() && train.fsdp) {
      return Error{"LoRA with FSDP (parallel.fsdp) is not modelled: the frozen base is replicated per data-parallel "
                   "rank; use the distributed optimizer"};
    }
  }
  const ShapeCost& cost = shape_cost(shape_key(train, r));
  StageMemory memory = this->memory(train, r, cost.memory);
  if (const auto offload = fitting_offload(train, r, cost.memory)) {
    train.offload_layers = *offload;  // auto: the fewest layers whose offloading makes the layout fit
    memory = this->memory(train, r, cost.memory);
  }
  const MemoryBreakdown& peak = memory.peak();
  if (!peak.fits() && memory_check == MemoryCheck::enforce) {
    const std::string_view stage = &peak == &memory.first ? "first" : &peak == &memory.last ? "last" : "middle";
    return Error{memory_error(peak, system_, stage)};
  }

  Projection p;
  p.layout = r;
  p.train = train;
  p.train.seq_len = r.seq_len;
  p.breakdown = step_breakdown(r, train, cost);
  p.step_time_s = p.breakdown.total();
  p.tokens_per_s = static_cast<double>(r.seq_len) * train.gbs / p.step_time_s;
  p.tokens_per_s_per_gpu = p.tokens_per_s / gpus;
  p.model_flops_per_sequence = flops_per_sequence(r.seq_len, train.flops_convention);
  p.model_tflops_per_gpu = train.gbs * p.model_flops_per_sequence / p.step_time_s / gpus / 1e12;
  p.peak_tflops = system_.dense_peak_flops(train.precision) / 1e12;
  p.mfu = p.model_tflops_per_gpu / p.peak_tflops;
  p.memory = peak;
  p.days_to_train = train.tokens / p.tokens_per_s / 86400.0;
  p.gpu_hours = p.days_to_train * 24.0 * gpus;
  if (price) {
    p.cost_usd = p.gpu_hours * price->usd_per_gpu_hour;
    p.price_label = price->label;
  } else {
    p.price_label = "no price given: cost not computed";
  }
  const std::string op_times =
      cost.measured_ops == 0
          ? std::string("roofline")
          : std::to_string(cost.measured_ops) + " of " + std::to_string(cost.ops) + " ops measured, the rest roofline";
  p.provenance = std::string("projected: ") + constants::kModelVersion + ", system " + system_.name +
                 (system_.software.framework.empty() ? std::string() : ", framework " + system_.software.framework) +
                 ", op times: " + op_times +
                 " (efficiencies calibrated on configs/baselines/calibration.toml, calibration-2.toml and "
                 "calibration-3.toml), MFU "
                 "against the dense " +
                 std::string(to_string(train.precision)) + " peak, model FLOPs with " +
                 std::string(to_string(train.flops_convention)) + " attention";
  return p;
}

void StepModel::set_finetune(std::optional<FineTune> finetune) {
  finetune_ = std::move(finetune);
  cache_.clear();
}

StageMemory StepModel::memory(const TrainConfig& train, const ResolvedLayout& resolved,
                              const ShapeMemory& per_layer) const {
  return finetune_ ? finetune_memory_per_gpu(model_, system_, train, resolved, per_layer, *finetune_)
                   : memory_per_gpu(model_, system_, train, resolved, per_layer);
}

std::optional<int> StepModel::fitting_offload(const TrainConfig& train, const ResolvedLayout& resolved,
                                              const ShapeMemory& per_layer) const {
  if (finetune_ && finetune_->lora_method()) {
    return std::nullopt;
  }
  return llm::fitting_offload(model_, system_, train, resolved, per_layer);
}

double StepModel::flops_per_sequence(int seq_len, AttentionFlops convention) const {
  return finetune_ ? finetune_flops_per_sequence(model_, seq_len, *finetune_, convention)
                   : model_flops_per_sequence(model_, seq_len, convention);
}

Expected<Projection> project(const ProjectionRequest& request) {
  auto model = find_model(request.model);
  if (!model) {
    return model.error();
  }
  auto system = find_system(request.system);
  if (!system) {
    return system.error();
  }
  auto framework = find_framework(request.framework.value_or(default_framework()));
  if (!framework) {
    return framework.error();
  }
  auto catalog = PricingCatalog::load();
  if (!catalog) {
    return catalog.error();
  }
  std::optional<Price> price;
  auto choice = request.price_provider ? catalog->find(*request.price_provider, request.system)
                                       : catalog->default_price(request.system);
  if (choice) {
    price = Price{.usd_per_gpu_hour = choice->entry.usd_per_gpu_hour, .label = choice->reason};
  } else if (request.price_provider) {
    return choice.error();
  }
  StepModel step_model(std::move(model).value(), apply_framework(std::move(system).value(), *framework));
  auto projection = step_model.project(request.gpus, request.train, price);
  if (projection && !price) {
    projection->price_label = choice.error().message;
  }
  return projection;
}

}  // namespace dgx::llm
