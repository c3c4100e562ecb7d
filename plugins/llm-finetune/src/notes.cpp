// The texts around llm-finetune's tables: what was assumed (model, job, methods, system, price, model accuracy), the
// configuration of project mode, how FLOPs are counted, the sweep, front, recommendation and trade between the
// methods of explore mode, and that the numbers are projections. Honesty of numbers (DESIGN.md): no projected number
// without its label.
#include <algorithm>
#include <cmath>
#include <optional>

#include <dgx/sdk/text.hpp>

#include "dgx/llm/finetune.hpp"
#include "dgx/llm/flops.hpp"
#include "dgx/llm/kernels/layer_spec.hpp"
#include "dgx/llm/model_constants.hpp"
#include "dgx/llm/workload/calibration_summary.hpp"
#include "dgx/llm/workload/training_measure.hpp"
#include "dgx/llm/workload/training_notes.hpp"
#include "dgx/llm/workload/training_rows.hpp"
#include "params.hpp"
#include "plugin.hpp"

namespace dgx::plugins::llm_finetune {

namespace {

namespace text = dgx::sdk::text;
namespace workload = llm::workload;

std::string percent(double fraction) { return text::fixed(100 * fraction, fraction < 0.01 ? 2 : 1) + "%"; }

std::string hours_text(double days) {
  const double hours = 24 * days;
  return text::fixed(hours, hours < 10 ? 2 : 1) + " hours";
}

std::string method_name(llm::FineTuneMethod method) { return method == llm::FineTuneMethod::sft ? "SFT" : "LoRA"; }

std::string dataset_text(const Dataset& d) {
  if (d.from_tokens) {
    return text::si_count(d.tokens) + " sample tokens (" + key::tokens + ")";
  }
  return text::si_count(d.tokens) + " sample tokens (" + text::grouped(static_cast<long long>(d.samples)) +
         " samples x " + text::fixed(d.avg_tokens_per_sample, 0) + " tokens x " +
         text::fixed(d.epochs, d.epochs == static_cast<int>(d.epochs) ? 0 : 1) + " epochs)";
}

std::string job_line(const FinetuneSettings& s, const FinetuneJob& job) {
  const std::string layout =
      s.finetune.packed
          ? "packed into sequences of " + std::to_string(job.seq_len) + " tokens (attention within each sample; " +
                percent(job.efficiency) + " of the tokens are samples, the rest the packs' unfilled tails)"
          : "one sample per sequence of " + std::to_string(job.seq_len) + " tokens, padded (" +
                percent(1 - job.efficiency) + " of the computed tokens are padding; " + key::packed + "=true packs)";
  return "Job: " + dataset_text(s.dataset) + ", " + layout + ": " + text::si_count(job.processed_tokens) +
         " tokens processed, " + text::grouped(std::llround(job.sequences)) + " sequences, " +
         text::grouped(std::llround(job.steps)) + " optimizer steps of " + std::to_string(s.train.gbs) +
         " sequences (" + key::gbs + "). Loss masking (answer tokens only) changes which tokens count, not the work.";
}

std::string methods_line(const FinetuneSettings& s, const llm::ModelConfig& m) {
  const double all = llm::count_parameters(m).total;
  std::string line = "Methods: ";
  for (std::size_t i = 0; i < s.methods.size(); ++i) {
    const llm::FineTune f = finetune_of(s, s.methods[i]);
    const double trainable = llm::trainable_parameters(m, f);
    line += (i != 0 ? "; " : "") + method_label(s.methods[i], f.lora);
    line += f.lora_method()
                ? " (alpha " + text::fixed(f.lora.alpha, 0) + ", frozen base): " + text::si_count(trainable) +
                      " trainable parameters, " + percent(trainable / all) + " of the model"
                : ": all " + text::si_count(all) + " parameters train";
  }
  return line + (s.methods.size() > 1 ? " (" + std::string(key::method) + ": explore compares them, project takes " +
                                            std::string(llm::to_string(s.methods.front())) + ")."
                                      : ".");
}

std::string methods_text(const FinetuneSettings& s) {
  std::string out;
  for (const llm::FineTuneMethod m : s.methods) {
    out += (out.empty() ? "" : ", ") + method_label(m, s.finetune.lora);
  }
  return out;
}

/// "8 GPUs LoRA r16 qkv fp8, TP1 PP1 CP1 VP1 MBS1: 2.35 hours, $54.20": point `i` of every method's points.
std::string describe_method_point(const MethodsExplored& e, std::size_t i, const FinetuneSettings& s,
                                  const workload::Assumptions& a) {
  const llm::ExplorePoint& p = e.merged.points[i];
  return std::to_string(p.gpus) + " GPUs " + method_label(e.methods[i], s.finetune.lora) + " " +
         std::string(llm::to_string(p.train.precision)) + ", " + workload::layout_label(p.train, a.model.moe()) + ": " +
         hours_text(p.days) + ", " + workload::cost_text(p, a);
}

/// The point of `method` at (gpus, precision), if the sweep kept one.
std::optional<std::size_t> method_point_at(const MethodsExplored& e, llm::FineTuneMethod method, int gpus,
                                           llm::Precision precision) {
  for (std::size_t i = 0; i < e.merged.points.size(); ++i) {
    const llm::ExplorePoint& p = e.merged.points[i];
    if (e.methods[i] == method && p.gpus == gpus && p.train.precision == precision) {
      return i;
    }
  }
  return std::nullopt;
}

/// The smallest GPU count at which `method` has a point.
std::optional<int> fewest_gpus(const MethodsExplored& e, llm::FineTuneMethod method) {
  std::optional<int> fewest;
  for (std::size_t i = 0; i < e.merged.points.size(); ++i) {
    if (e.methods[i] == method && (!fewest || e.merged.points[i].gpus < *fewest)) {
      fewest = e.merged.points[i].gpus;
    }
  }
  return fewest;
}

std::string short_point(const MethodsExplored& e, std::size_t i, const workload::Assumptions& a) {
  return method_name(e.methods[i]) + " " + hours_text(e.merged.points[i].days) + ", " +
         workload::cost_text(e.merged.points[i], a);
}

}  // namespace

std::string FineTuning::assumptions_note() const {
  const workload::Assumptions& a = assumptions_;
  return "Model: " + workload::model_text(a.model) + ".\n" + job_line(settings_, job_) + "\n" +
         methods_line(settings_, a.model) + "\n" + workload::system_line(settings_, a) + "\n" +
         workload::framework_line(settings_, a) + "\n" + workload::price_line(settings_, a) +
         "\nPerformance model: " + llm::constants::kModelVersion +
         ", per-op rooflines of the system profile with calibrated efficiencies; fine-tuning changes the op lists, "
         "memory and optimizer of pretraining's model, nothing is fitted to fine-tuning rows; accuracy on published "
         "runs: " +
         a.calibration + "; " +
         workload::bands_sentence(a.model, a.system, settings_.precisions, settings_.gpus, true) + ".";
}

std::string FineTuning::configuration_note(const llm::Projection& p) const {
  const llm::TrainConfig& t = p.train;
  const workload::Assumptions& a = assumptions_;
  return method() + " of " + a.model.name + " on " + std::to_string(p.layout.gpus) + " x " + a.system.name + ", " +
         std::string(llm::to_string(t.precision)) + " GEMMs: " + workload::layout_label(t, a.model.moe()) + ", DP " +
         std::to_string(p.layout.dp) + "; global batch " + std::to_string(t.gbs) + " sequences of " +
         std::to_string(t.seq_len) + " tokens (" + std::to_string(p.layout.microbatches) +
         " microbatches per pipeline per step); recompute " + std::string(llm::to_string(t.recompute)) +
         "; distributed optimizer " + (t.distributed_optimizer ? "on" : "off") + ".";
}

std::string FineTuning::throughput_note(const llm::Projection& p) const {
  return text::si_count(p.tokens_per_s) + " tokens/s in all, " + text::fixed(p.tokens_per_s_per_gpu, 0) + " per GPU; " +
         text::fixed(p.model_tflops_per_gpu, 0) + " model TFLOP/s per GPU = MFU " + text::fixed(100 * p.mfu, 1) +
         "% of " + text::fixed(p.peak_tflops, 0) + "; " + text::fixed(24 * p.days_to_train, 2) + " hours for " +
         text::si_count(job_.processed_tokens) + " tokens, " + text::si_count(p.gpu_hours) + " GPU-hours" +
         (p.cost_usd ? ", " + text::usd(*p.cost_usd) : std::string()) + ".";
}

std::string FineTuning::flops_note() const {
  return "MFU and model TFLOP/s count the FLOPs each method executes. SFT: the pretraining formula, "
         "s*(12*L*h^2*(1 + g/a) + 6*m*L*ffn*h + 6*V*h) + 12*L*h*c*s*span per sequence, with the attention core over "
         "the sample (span = the average sample when packed, the padded sequence when not; c = 1, NVIDIA's full "
         "convention, or 1/2 with train.flops_convention=causal). LoRA: frozen weights still run their forward and "
         "data-gradient GEMMs but no weight-gradient GEMM, so 2/3 of SFT's GEMM terms; the attention core costs what "
         "it costs in SFT (its backward computes dQ, dK and dV either way); the adapters add 6*r*(in + out) per "
         "targeted layer and token. DGX Cloud Benchmarking reports LoRA MFU as SFT x 2/3 instead: JSON carries it as "
         "mfu_published.";
}

std::string FineTuning::trade_note(const std::string& comparison) const {
  const llm::FineTune lora = finetune_of(settings_, llm::FineTuneMethod::lora);
  const double share =
      llm::trainable_parameters(assumptions_.model, lora) / llm::count_parameters(assumptions_.model).total;
  return "LoRA trains " + percent(share) + " of the parameters (" +
         method_label(llm::FineTuneMethod::lora, settings_.finetune.lora) +
         "): no gradients or optimizer state for the frozen base, no weight-gradient GEMMs, no data-parallel "
         "gradient traffic beyond the adapters'; so it fits on fewer GPUs and steps faster than SFT" +
         (comparison.empty() ? std::string(".") : " (" + comparison + ").") +
         " Whether its adapters reach the quality of full fine-tuning on your data is not modelled: these rows "
         "compare time and cost only.";
}

std::string FineTuning::projection_note() const {
  return workload::projection_disclaimer(
      llm::constants::kModelVersion, assumptions_.system.name,
      "To measure instead, run the same command on a GPU machine: it measures one layer of the model, with its "
      "frozen weights and LoRA adapters, at the configuration's per-rank shapes and projects the cluster from "
      "the measured op times (rows labelled measured-calibrated; --mode measure insists on it).");
}

std::string FineTuning::measured_note(const std::string& device, const llm::kernels::LayerSpec& spec) const {
  return "One " + assumptions_.model.display + " layer as " + method() +
         " trains it, forward and backward, "
         "measured on " +
         device + " at the per-rank shapes of " + workload::layout_label(settings_.train, assumptions_.model.moe()) +
         (spec.sample_len > 0 ? ", samples packed " + std::to_string(spec.sample_len) + " tokens long" : "") + " (" +
         llm::kernels::describe(spec) +
         "; communication is not run: the model adds it). Its op times (CUDA events, "
         "median of " +
         std::to_string(workload::kProfileRepeats) +
         " profiled steps) replace the model's estimates for the same ops in the projected rows "
         "(\"measured-calibrated\"); everything else is the model's." +
         (settings_.finetune.lora_method() ? " The frozen layer without adapters is timed too: "
                                             "layer.adapter_overhead is the LoRA layer's step over its."
                                           : "");
}

std::string FineTuning::sweep_note() const {
  return workload::sweep_text(
      settings_, assumptions_,
      {.methods = methods_text(settings_),
       .kept_per = "method, GPU count and precision",
       .optimizer = std::string("distributed optimizer ") + (settings_.train.distributed_optimizer ? "on" : "off")});
}

std::string FineTuning::pareto_note(const MethodsExplored& e) const {
  return workload::pareto_front_text(
      e.merged.points,
      "Marked * in the pareto column: no other configuration, of any method, "
      "fine-tunes both faster and cheaper. Fastest first:",
      [&](std::size_t i) { return describe_method_point(e, i, settings_, assumptions_); });
}

std::string FineTuning::recommendation_note(const MethodsExplored& e) const {
  return workload::recommendation_text(
      e.merged, assumptions_.price.has_value(),
      {.slack = "+" + text::fixed(100 * settings_.budget_slack, 0) + "% (" + key::budget_slack + ")",
       .cheapest_is = ", ",
       .deadline = settings_.deadline_hours,
       .deadline_key = key::deadline_hours,
       .deadline_unit = "hours",
       .verb = "fine-tunes",
       .budget = settings_.budget_usd},
      [&](std::size_t i) { return describe_method_point(e, i, settings_, assumptions_); });
}

std::string FineTuning::comparison_text(const MethodsExplored& e) const {
  const llm::ExploreResult& r = e.merged;
  if (e.sweeps.size() < 2 || !r.fastest_within_budget) {
    return {};
  }
  const llm::ExplorePoint& pick = r.points[*r.fastest_within_budget];
  std::string side_by_side;
  std::string elsewhere;
  for (const MethodSweep& sweep : e.sweeps) {
    const auto at = method_point_at(e, sweep.method, pick.gpus, pick.train.precision);
    if (at) {
      side_by_side += (side_by_side.empty() ? "" : "; ") + short_point(e, *at, assumptions_);
      continue;
    }
    const auto fewest = fewest_gpus(e, sweep.method);
    elsewhere += "; " + method_name(sweep.method) +
                 (fewest ? " needs at least " + std::to_string(*fewest) + " GPUs" : " fits at no explored GPU count");
  }
  return "on " + std::to_string(pick.gpus) + " GPUs in " + std::string(llm::to_string(pick.train.precision)) + ": " +
         side_by_side + elsewhere;
}

std::string FineTuning::dropped_note(const MethodsExplored& e) const {
  std::string out;
  for (const MethodSweep& sweep : e.sweeps) {
    const std::string dropped = sweep.result ? workload::dropped_note(*sweep.result, assumptions_)
                                             : "fits at no explored GPU count: " + sweep.failure + ".";
    if (!dropped.empty()) {
      out += (out.empty() ? "" : "\n") + method_name(sweep.method) + ": " + dropped;
    }
  }
  return out;
}

}  // namespace dgx::plugins::llm_finetune
