#include "plugin.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

#include <dgx/sdk/error.hpp>
#include <dgx/sdk/text.hpp>

#include "dgx/llm/finetune_memory.hpp"
#include "dgx/llm/finetune_ops.hpp"
#include "dgx/llm/kernels/layer_probe.hpp"
#include "dgx/llm/kernels/measured_ops.hpp"
#include "dgx/llm/workload/calibration_summary.hpp"
#include "dgx/llm/workload/plugin_spec.hpp"
#include "dgx/llm/workload/training_measure.hpp"
#include "dgx/llm/workload/training_notes.hpp"
#include "dgx/llm/workload/training_rows.hpp"
#include "fixed_cost.hpp"
#include "params.hpp"

namespace dgx::plugins::llm_finetune {

namespace {

namespace kernels = llm::kernels;
namespace workload = llm::workload;
namespace text = dgx::sdk::text;
using dgx::sdk::NotePlacement;

constexpr int kFrozenBaseSteps = 10;  // the frozen layer without adapters: steps timed back to back

/// The shared lookups, with the accuracy quoted on the fine-tuning calibration set first, then the pretraining one.
workload::Assumptions resolve_finetune_assumptions(const FinetuneSettings& settings) {
  workload::Assumptions a = workload::resolve_assumptions(settings);
  a.calibration = workload::finetune_calibration_summary(a.system) + "; pretraining " + a.calibration;
  return a;
}

/// Appends one method's points and counts to the merged result.
void merge(MethodsExplored& out, llm::FineTuneMethod method, const llm::ExploreResult& r) {
  out.merged.evaluated += r.evaluated;
  out.merged.feasible += r.feasible;
  out.merged.cost_unit = r.cost_unit;
  for (const llm::ExplorePoint& p : r.points) {
    out.merged.points.push_back(p);
    out.methods.push_back(method);
  }
}

/// Orders the merged points by GPU count, then method (as requested), then precision (as swept).
void order(MethodsExplored& out, const FinetuneSettings& s) {
  std::vector<std::size_t> index(out.merged.points.size());
  std::iota(index.begin(), index.end(), std::size_t{0});
  const auto rank = [&](llm::FineTuneMethod m) {
    return std::find(s.methods.begin(), s.methods.end(), m) - s.methods.begin();
  };
  std::stable_sort(index.begin(), index.end(), [&](std::size_t x, std::size_t y) {
    const int gx = out.merged.points[x].gpus;
    const int gy = out.merged.points[y].gpus;
    return gx != gy ? gx < gy : rank(out.methods[x]) < rank(out.methods[y]);
  });
  std::vector<llm::ExplorePoint> points;
  std::vector<llm::FineTuneMethod> methods;
  for (const std::size_t i : index) {
    points.push_back(out.merged.points[i]);
    methods.push_back(out.methods[i]);
  }
  out.merged.points = std::move(points);
  out.methods = std::move(methods);
}

}  // namespace

FineTuning::FineTuning(const dgx::sdk::Host& host)
    : settings_(read_settings(host)), assumptions_(resolve_finetune_assumptions(settings_)),
      job_(resolve_job(settings_, assumptions_.model)) {
  // The model's days, GPU-hours and cost are the job's.
  settings_.train.tokens = job_.processed_tokens;
}

void FineTuning::use_system(const std::string& system) {
  settings_.system = system;
  assumptions_ = resolve_finetune_assumptions(settings_);
}

std::string FineTuning::method() const { return method_label(settings_.finetune.method, settings_.finetune.lora); }

void FineTuning::configure(llm::StepModel& model) const { model.set_finetune(settings_.finetune); }

kernels::LayerSpec FineTuning::layer_spec(const llm::TrainConfig& train) const {
  return kernels::layer_spec_for(assumptions_.model, train, settings_.finetune);
}

llm::OpList FineTuning::layer_ops(const llm::ShapeKey& shape) const {
  llm::OpList ops = Training::layer_ops(shape);
  llm::apply_finetune(ops, llm::StepChunk::layer, assumptions_.model, assumptions_.system, shape, settings_.finetune);
  return ops;
}

double FineTuning::activation_bytes(const llm::ShapeKey& shape) const {
  return llm::finetune_activation_bytes(assumptions_.model, shape, settings_.finetune);
}

std::string FineTuning::layer_name() const { return std::string(llm::to_string(settings_.finetune.method)) + " layer"; }

void FineTuning::add_case_keys(dgx::sdk::Case& c) const {
  c.set("method", std::string(llm::to_string(settings_.finetune.method)));
}

void FineTuning::add_measured_metrics(const dgx::sdk::Host& host, const llm::TrainConfig& train,
                                      double step_seconds) const {
  if (!settings_.finetune.lora_method()) {
    return;
  }
  kernels::LayerSpec spec = layer_spec(train);
  spec.lora.qkv = spec.lora.proj = spec.lora.fc1 = spec.lora.fc2 = false;
  const auto frozen_probe = kernels::make_layer_probe(spec);
  (void)frozen_probe->time_steps(2, false);  // warm-up
  const double frozen = frozen_probe->time_steps(kFrozenBaseSteps, false) / kFrozenBaseSteps;
  host.add_metric("layer.frozen_base_time", frozen, "s");
  host.add_metric("layer.adapter_overhead", frozen > 0 ? step_seconds / frozen : 0.0, "1");
}

std::string FineTuning::infeasible_hint(const std::string& reason) const {
  if (reason.rfind("needs ", 0) != 0) {
    return {};
  }
  // A memory error: where the method fits when the configured GPU count does not, the smallest explored count.
  llm::StepModel model(assumptions_.model, assumptions_.system);
  configure(model);
  llm::ExploreSpace space = explore_space();
  space.gpu_counts.clear();
  space.gpus_min = 1;
  space.gpus_max = 16384;
  space.precisions = {settings_.train.precision};
  const auto r = llm::explore(model, space);
  if (!r) {
    return "; it fits at no GPU count from 1 to 16384 on " + assumptions_.system.name;
  }
  const llm::ExplorePoint& p = r->points.front();
  return "; the fewest GPUs it fits on are " + std::to_string(p.gpus) + " (" +
         workload::layout_label(p.train, assumptions_.model.moe()) + ", GBS " + std::to_string(p.train.gbs) + ")";
}

llm::ExploreSpace FineTuning::explore_space() const {
  llm::ExploreSpace space = workload::explore_space(settings_);
  space.seq_len = job_.seq_len;
  space.tokens = job_.processed_tokens;
  return space;
}

MethodsExplored FineTuning::explore_methods(const dgx::sdk::Host& host) const {
  const FinetuneSettings& s = settings_;
  const workload::Assumptions& a = assumptions_;
  // Deadlines are in hours here: recommend() picks the deadline point over every method's points.
  const llm::ExploreOptions options{.price = a.price,
                                    .budget_slack = s.budget_slack,
                                    .deadline_days = std::nullopt,
                                    .budget_usd = std::nullopt,  // picked over every method's points
                                    .cancelled = [&host] { return host.cancelled(); }};
  const llm::ExploreSpace space = explore_space();
  MethodsExplored out;
  const workload::SweepClock clock(host);
  for (const llm::FineTuneMethod method : s.methods) {
    llm::StepModel model(a.model, a.system);
    model.set_finetune(finetune_of(s, method));
    MethodSweep sweep{.method = method, .result = std::nullopt, .failure = {}};
    auto result = llm::explore(model, space, options);
    host.throw_if_cancelled();  // Ctrl-C ends the sweep early: no rows from half a space
    if (result) {
      for (llm::ExplorePoint& p : result->points) {  // the job's fixed time, before any pick is made
        add_fixed_cost(p, fixed_cost(s.fixed, a.model, finetune_of(s, method), p.train, p.layout.dp), s.fixed, a.price);
      }
      merge(out, method, *result);
      sweep.result = std::move(result).value();
    } else {
      sweep.failure = result.error().message;
    }
    out.sweeps.push_back(std::move(sweep));
  }
  out.took = clock.elapsed();
  if (out.merged.points.empty()) {
    std::string reasons;
    for (const MethodSweep& sweep : out.sweeps) {
      reasons += (reasons.empty() ? "" : "; ") + std::string(llm::to_string(sweep.method)) + ": " + sweep.failure;
    }
    throw dgx::sdk::InvalidArgument(a.model.name + " cannot be fine-tuned at any explored GPU count on " +
                                    a.system.name + " (" + reasons +
                                    "): more GPUs (explore.gpus_max), LoRA, a shorter sequence or a system with more "
                                    "HBM may fit");
  }
  order(out, s);
  workload::recommend(out.merged, s.budget_slack,
                      s.deadline_hours ? std::optional<double>(*s.deadline_hours / 24) : std::nullopt,
                      a.price ? s.budget_usd : std::nullopt);
  return out;
}

void FineTuning::explore(const dgx::sdk::Host& host) const {
  const MethodsExplored explored = explore_methods(host);
  const llm::ExploreResult& r = explored.merged;

  host.note(NotePlacement::before, "Assumptions", assumptions_note());
  host.note(NotePlacement::before, "Sweep", sweep_note());
  for (std::size_t i = 0; i < r.points.size(); ++i) {
    const llm::ExplorePoint& p = r.points[i];
    dgx::sdk::Row row =
        projected_row("explore", explored.methods[i], p.train, workload::headline_of(p, assumptions_), p.breakdown);
    workload::add_explore_fields(row, r, i, assumptions_.model.moe());
    host.emit(row);
  }
  host.note(NotePlacement::after, "Pareto front (hours vs cost)", pareto_note(explored));
  host.note(NotePlacement::after, "Recommendation", recommendation_note(explored));
  if (settings_.methods.size() > 1 || settings_.methods.front() == llm::FineTuneMethod::lora) {
    host.note(NotePlacement::after, "Trade", trade_note(comparison_text(explored)));
  }
  if (const auto pick = workload::recommended_point(r)) {
    const llm::ExplorePoint& p = r.points[*pick];
    host.note(NotePlacement::after, "Fixed cost per job",
              fixed_cost_note(settings_.fixed,
                              fixed_cost(settings_.fixed, assumptions_.model,
                                         finetune_of(settings_, explored.methods[*pick]), p.train, p.layout.dp),
                              p));
  }
  if (settings_.providers.size() > 1) {
    host.note(NotePlacement::after, "Provider comparison", provider_note(r));
  }
  host.note(NotePlacement::after, "FLOPs", flops_note());
  if (const std::string dropped = dropped_note(explored); !dropped.empty()) {
    host.note(NotePlacement::after, "Dropped", dropped);
  }
  host.note(NotePlacement::after, "Projection",
            projection_note() + " " + workload::sweep_summary(r.evaluated, explored.took));
}

std::string FineTuning::provider_note(const llm::ExploreResult& r) const {
  const auto pick = workload::recommended_point(r);
  if (!pick) {
    return "No recommended configuration to compare the providers on.";
  }
  const llm::ExplorePoint& p = r.points[*pick];
  std::vector<workload::Assumptions> priced = workload::priced_by_providers(assumptions_, settings_);
  std::stable_sort(priced.begin(), priced.end(),
                   [](const auto& x, const auto& y) { return x.price->usd_per_gpu_hour < y.price->usd_per_gpu_hour; });
  // One price for every GPU-hour: each provider ranks the configurations alike, so the pick is the same at each.
  std::string out = "Projected: the table is priced at " + assumptions_.provider +
                    "'s rate; one rate per GPU-hour ranks every configuration alike, so the recommended one (" +
                    std::to_string(p.gpus) + " GPUs " + std::string(llm::to_string(p.train.precision)) + ", " +
                    text::fixed(24 * p.days, 2) + " hours, " + text::grouped(static_cast<long long>(p.gpu_hours)) +
                    " GPU-hours billed) is the same at each provider, cheapest first:";
  for (const workload::Assumptions& a : priced) {
    const double usd = p.gpu_hours * a.price->usd_per_gpu_hour;
    out += "\n" + a.provider + " $" + text::fixed(a.price->usd_per_gpu_hour, 2) + "/GPU-h: $" +
           text::fixed(usd, usd < 100 ? 2 : 0) + (&a == &priced.front() ? " (cheapest)" : "");
  }
  return out;
}

dgx::sdk::PluginSpec make_plugin_spec() {
  // The training rows, and what fine-tuning adds: the data set and method identify a job (finetune.*).
  workload::RowDeclarations rows = workload::training_declarations(workload::RunTime::hours_to_finetune);
  rows.identity_keys.emplace_back("finetune.*");
  using dgx::sdk::MetricSpec;
  rows.metrics.insert(
      rows.metrics.end(),
      {MetricSpec::neutral("trainable_parameters", "count", "parameters that train: all (SFT) or the adapters' (LoRA)"),
       MetricSpec::higher("mfu_published", "%", "MFU counting the FLOPs of full training, as published LoRA MFU does"),
       MetricSpec::lower("layer.frozen_base_time", "s",
                         "measured: the layer's step without adapters or weight "
                         "gradients"),
       MetricSpec::lower("layer.adapter_overhead", "1", "measured: the LoRA step / the frozen base's")});
  return workload::plugin_spec<FineTuning>({
      .name = kWorkloadName,
      .description = "LLM fine-tuning: SFT and LoRA compared in step time, tokens/s, MFU, hours and cost of a data "
                     "set, projected from a calibrated performance model, and an explorer of method, GPU count, "
                     "precision and parallel layout",
      .kind = dgx::sdk::Kind::finetune,
      .summary = "Projects fine-tuning a data set with SFT or LoRA (time, throughput, MFU, cost; LoRA MFU counts the "
                 "executed FLOPs: frozen forward and dgrad GEMMs, attention, adapters) and explores method, GPU "
                 "count, precision and layout",
      .precisions = workload::training_precisions(),
      .params = finetune_params(),
      .can_measure = workload::can_measure_layer,
      .rows = std::move(rows),
  });
}

}  // namespace dgx::plugins::llm_finetune
