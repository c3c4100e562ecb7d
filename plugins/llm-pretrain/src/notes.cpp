// The texts around llm-pretrain's tables: what was assumed and why (before), and that the numbers are projections
// and how to measure instead (after); the configuration of project mode; the sweep, front, recommendation and
// framework upgrade of explore mode. Honesty of numbers (DESIGN.md): no projected number without its label.
#include <algorithm>
#include <cmath>

#include <dgx/sdk/text.hpp>

#include "dgx/llm/model_constants.hpp"
#include "dgx/llm/workload/calibration_summary.hpp"
#include "dgx/llm/workload/training_measure.hpp"
#include "dgx/llm/workload/training_notes.hpp"
#include "params.hpp"
#include "plugin.hpp"

namespace dgx::plugins::llm_pretrain {

namespace {

namespace text = dgx::sdk::text;
namespace workload = llm::workload;

std::string model_line(const PretrainSettings& s, const workload::Assumptions& a) {
  const int seq = s.train.seq_len > 0 ? s.train.seq_len : a.model.seq_len;
  return "Model: " + workload::model_text(a.model) + "; sequences of " + std::to_string(seq) + " tokens, " +
         text::si_count(s.train.tokens) + " tokens to train.";
}

std::string accuracy_line(const PretrainSettings& s, const workload::Assumptions& a) {
  return "Performance model: " + std::string(llm::constants::kModelVersion) +
         ", per-op rooflines of the system profile with calibrated efficiencies; accuracy on published runs: " +
         a.calibration + "; " + workload::bands_sentence(a.model, a.system, s.precisions, s.gpus) + ".";
}

/// "layers split 15/16/.../16/15 over 8 stages (embedding-loss)".
std::string stages_text(const llm::ResolvedLayout& r) {
  const llm::StageLayers& s = r.stages;
  if (r.layout.pp == 1) {
    return "all " + std::to_string(s.first) + " layers on one pipeline stage";
  }
  std::string split = std::to_string(s.first);
  if (r.layout.pp > 2) {
    split += "/" + std::to_string(s.middle) + (r.layout.pp > 3 ? "/.../" + std::to_string(s.middle) : "");
  }
  split += "/" + std::to_string(s.last);
  const char* why = s.split == llm::PipelineSplit::embedding_loss ? " (the embedding and the loss count as a layer)"
                    : s.split == llm::PipelineSplit::uneven       ? " (the first and last stage share the shortfall)"
                    : s.split == llm::PipelineSplit::custom ? " (layers per virtual chunk as Megatron's layout allows)"
                                                            : "";
  return "layers split " + split + " over " + std::to_string(r.layout.pp) + " stages, " +
         std::string(llm::to_string(s.split)) + why;
}

/// "; activations of 20 layers per stage offloaded to the host (automatic: the fewest that fit)", or nothing.
std::string offload_text(const llm::TrainConfig& run, const llm::TrainConfig& requested) {
  if (run.offload_layers <= 0) {
    return "";
  }
  return "; activations of " + std::to_string(run.offload_layers) + " layers per stage offloaded to the host" +
         (requested.offload_layers == llm::kAutoOffload ? " (automatic: the fewest that fit)" : "");
}

/// The explore point (gpus, precision) of a release's sweep, if it kept one.
const llm::ExplorePoint* point_at(const llm::ExploreResult& r, int gpus, llm::Precision precision) {
  for (const llm::ExplorePoint& p : r.points) {
    if (p.gpus == gpus && p.train.precision == precision) {
      return &p;
    }
  }
  return nullptr;
}

std::string percent_change(double from, double to) {
  const double change = 100 * (to - from) / from;
  return (change >= 0 ? "+" : "") + text::fixed(change, 1) + "%";
}

}  // namespace

std::string Pretraining::assumptions_note() const {
  return model_line(settings_, assumptions_) + "\n" + workload::system_line(settings_, assumptions_) + "\n" +
         workload::framework_line(settings_, assumptions_) + "\n" + workload::price_line(settings_, assumptions_) +
         "\n" + accuracy_line(settings_, assumptions_);
}

std::string Pretraining::scope_note() const { return workload::scope_note(settings_, assumptions_); }

std::string Pretraining::configuration_note(const llm::Projection& p) const {
  const llm::TrainConfig& t = p.train;
  const workload::Assumptions& a = assumptions_;
  return a.model.name + " on " + std::to_string(p.layout.gpus) + " x " + a.system.name + ", " +
         std::string(llm::to_string(t.precision)) + " GEMMs: " + workload::layout_label(t, a.model.moe()) + ", DP " +
         std::to_string(p.layout.dp) + "; global batch " + std::to_string(t.gbs) + " sequences of " +
         std::to_string(t.seq_len) + " tokens (" + std::to_string(p.layout.microbatches) +
         " microbatches per pipeline per step); recompute " + std::string(llm::to_string(t.recompute)) + "; " +
         (t.fsdp ? std::string("Megatron FSDP (parameters, gradients and optimizer state sharded)")
                 : std::string("distributed optimizer ") + (t.distributed_optimizer ? "on" : "off")) +
         offload_text(t, settings_.train) + "; " + stages_text(p.layout) + ".";
}

std::string Pretraining::throughput_note(const llm::Projection& p) const {
  return text::si_count(p.tokens_per_s) + " tokens/s in all, " + text::fixed(p.tokens_per_s_per_gpu, 0) + " per GPU; " +
         text::fixed(p.model_tflops_per_gpu, 0) + " model TFLOP/s per GPU = MFU " + text::fixed(100 * p.mfu, 1) +
         "% of " + text::fixed(p.peak_tflops, 0) + "; " + text::fixed(p.days_to_train, 1) + " days, " +
         text::si_count(p.gpu_hours) + " GPU-hours" + (p.cost_usd ? ", " + text::usd(*p.cost_usd) : std::string()) +
         ".";
}

std::string Pretraining::projection_note() const {
  return workload::projection_disclaimer(
      llm::constants::kModelVersion, assumptions_.system.name,
      "To measure instead, run the same command on a GPU machine: it measures one layer of the model at the "
      "configuration's per-rank shapes and projects the cluster from the measured op times (rows labelled "
      "measured-calibrated; --mode measure insists on it). dgxhost --plugin gemm and --plugin llm-layer time "
      "the GEMMs and the layer on their own.");
}

std::string Pretraining::measured_note(const std::string& device, const llm::kernels::LayerSpec& /*spec*/) const {
  return "One " + assumptions_.model.display + " layer, forward and backward, measured on " + device +
         " at the per-rank shapes of " + workload::layout_label(settings_.train, assumptions_.model.moe()) +
         " (the layout's TP, CP, EP and micro-batch; communication is not run: the model adds it). Its op "
         "times (CUDA events, median of " +
         std::to_string(workload::kProfileRepeats) +
         " profiled steps) replace the model's estimates for the same ops in the projected rows "
         "(\"measured-calibrated\"); everything else is the model's.";
}

std::string describe_point(const llm::ExplorePoint& p, const workload::Assumptions& a, bool name_provider) {
  const std::string provider =
      name_provider ? " on " + (a.provider.empty() ? std::string("the given price") : a.provider) : std::string();
  return std::to_string(p.gpus) + " GPUs " + std::string(llm::to_string(p.train.precision)) + ", " +
         workload::layout_label(p.train, a.model.moe()) + provider + ": " + text::fixed(p.days, p.days < 10 ? 2 : 1) +
         " days, " + workload::cost_text(p, a);
}

std::string Pretraining::sweep_note() const {
  const PretrainSettings& s = settings_;
  return workload::sweep_text(s, assumptions_,
                              {.methods = {},
                               .kept_per = "GPU count and precision",
                               .optimizer = (s.train.fsdp ? std::string("Megatron FSDP layouts (") + key::fsdp + ")"
                                                          : std::string("distributed optimizer ") +
                                                                (s.train.distributed_optimizer ? "on" : "off")) +
                                            "; pipeline split " + std::string(llm::to_string(s.train.pipeline_split))});
}

std::string Pretraining::pareto_note(const llm::ExploreResult& r) const {
  return pareto_note(r, [&](std::size_t i) { return describe_point(r.points[i], assumptions_); });
}

std::string Pretraining::pareto_note(const llm::ExploreResult& r, const workload::DescribePoint& describe) const {
  return workload::pareto_front_text(
      r.points,
      "Marked * in the pareto column: no other configuration trains both faster and cheaper. Fastest first:", describe);
}

std::string Pretraining::recommendation_note(const llm::ExploreResult& r) const {
  return recommendation_note(r, [&](std::size_t i) { return describe_point(r.points[i], assumptions_); });
}

std::string Pretraining::recommendation_note(const llm::ExploreResult& r,
                                             const workload::DescribePoint& describe) const {
  const double percent = 100 * settings_.budget_slack;
  const bool whole = percent == std::round(percent);
  return workload::recommendation_text(r, assumptions_.price.has_value(),
                                       {.slack = "+" + text::fixed(percent, whole ? 0 : 1) + "% (" + key::budget_slack +
                                                 " = " + text::fixed(settings_.budget_slack, whole ? 2 : 3) + ")",
                                        .cheapest_is = "; the cheapest is ",
                                        .deadline = settings_.deadline_days,
                                        .deadline_key = key::deadline_days,
                                        .deadline_unit = "days",
                                        .verb = "trains",
                                        .budget = settings_.budget_usd},
                                       describe);
}

namespace {

llm::AccuracyBand pick_band(const llm::ExploreResult& r, std::size_t pick, const workload::Assumptions& a) {
  const llm::ExplorePoint& p = r.points[pick];
  return workload::projection_band(a.model, a.system, p.train.precision, p.gpus);
}

}  // namespace

std::string Pretraining::confidence_note(const llm::ExploreResult& r, std::size_t pick) const {
  return workload::ties_text(r, pick, pick_band(r, pick, assumptions_),
                             [&](std::size_t i) { return describe_point(r.points[i], assumptions_); });
}

std::string Pretraining::recipe_note(const llm::ExploreResult& r, std::size_t pick) const {
  llm::StepModel model(assumptions_.model, assumptions_.system);
  return workload::recipe_text(model, r, pick, assumptions_, pick_band(r, pick, assumptions_));
}

std::string upgrade_note(const std::vector<ReleaseOutcome>& releases) {
  std::vector<ReleaseOutcome> sorted = releases;
  std::sort(sorted.begin(), sorted.end(), [](const ReleaseOutcome& x, const ReleaseOutcome& y) {
    return x.assumptions->framework.released < y.assumptions->framework.released;
  });
  const ReleaseOutcome& newest = sorted.back();
  if (!newest.result->fastest_within_budget) {
    return "No recommended configuration to compare the releases on.";
  }
  const llm::ExplorePoint& job = newest.result->points[*newest.result->fastest_within_budget];
  std::string out = "The same job (" + newest.assumptions->model.name + ", " + text::si_count(job.train.tokens) +
                    " tokens, " + std::to_string(job.gpus) + " x " + newest.assumptions->system.name + ", " +
                    std::string(llm::to_string(job.train.precision)) + ": the recommended point of " +
                    newest.assumptions->framework.name + "), each release with its fastest layout:";
  const llm::ExplorePoint* oldest = nullptr;
  const workload::Assumptions* oldest_assumptions = nullptr;
  for (const ReleaseOutcome& release : sorted) {
    const llm::ExplorePoint* p = point_at(*release.result, job.gpus, job.train.precision);
    out += "\n" + release.assumptions->framework.name + ": ";
    if (p == nullptr) {
      out += "no feasible layout";
      continue;
    }
    out += describe_point(*p, *release.assumptions);
    if (oldest == nullptr) {
      oldest = p;
      oldest_assumptions = release.assumptions;
    }
  }
  if (oldest == nullptr || oldest == &job) {
    return out;
  }
  const double days = oldest->days - job.days;
  const double saved = oldest->cost - job.cost;
  const std::string money = newest.assumptions->price
                                ? text::usd(std::abs(saved))
                                : text::grouped(static_cast<long long>(std::abs(saved))) + " GPU-hours";
  // Releases of one family are an upgrade; another family (torchtitan beside NeMo) is a switch of framework.
  const bool upgrade = oldest_assumptions->framework.family == newest.assumptions->framework.family;
  out += std::string(upgrade ? "\nUpgrading from " : "\nSwitching framework from ") +
         oldest_assumptions->framework.name + " to " + newest.assumptions->framework.name +
         (days >= 0 ? " saves " : " costs ") + text::fixed(std::abs(days), 1) + " days (" +
         percent_change(oldest->days, job.days) + ") and " + (saved >= 0 ? "saves " : "costs ") + money + " (" +
         workload::cost_text(*oldest, *oldest_assumptions) + " -> " + workload::cost_text(job, *newest.assumptions) +
         ") for the same job.";
  return out;
}

}  // namespace dgx::plugins::llm_pretrain
