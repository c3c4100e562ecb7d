#include "explore_notes.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "dgx/llm/workload/training_notes.hpp"
#include "dgx/llm/workload/training_rows.hpp"
#include "params.hpp"
#include "rows.hpp"
#include <dgx/sdk/text.hpp>

namespace dgx::plugins::llm_finetune {

namespace {

using dgx::sdk::text::fixed;

std::string hours_text(double days) {
  const double hours = 24 * days;
  return fixed(hours, hours < 10 ? 2 : 1) + " hours";
}

std::string method_name(llm::FineTuneMethod method) { return method == llm::FineTuneMethod::sft ? "SFT" : "LoRA"; }

std::string methods_text(const FinetuneSettings& s) {
  std::string out;
  for (const llm::FineTuneMethod m : s.methods) {
    out += (out.empty() ? "" : ", ") + method_label(m, s.finetune.lora);
  }
  return out;
}

/// The point of `method` at (gpus, precision), if the sweep kept one.
std::optional<std::size_t> point_at(const MethodsExplored& e, llm::FineTuneMethod method, int gpus,
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

std::string short_point(const MethodsExplored& e, std::size_t i, const llm::workload::Assumptions& a) {
  return method_name(e.methods[i]) + " " + hours_text(e.merged.points[i].days) + ", " +
         llm::workload::cost_text(e.merged.points[i], a);
}

}  // namespace

std::string sweep_note(const FinetuneSettings& s, const llm::workload::Assumptions& a) {
  const std::string batch = s.gbs_per_gpu > 0
                                ? std::to_string(s.gbs_per_gpu) + " sequences per GPU (" + key::gbs_per_gpu + ")"
                                : std::to_string(s.train.gbs) + " sequences at every GPU count (" + key::gbs + "; " +
                                      key::gbs_per_gpu + " = 0)";
  const int seq = s.train.seq_len > 0 ? s.train.seq_len : a.model.seq_len;
  return "GPU counts: " + llm::workload::gpu_counts_text(s) + ".\nMethods: " + methods_text(s) +
         ".\nPrecisions: " + llm::workload::precision_list(s.precisions) + ".\nLayouts: every valid combination of " +
         llm::workload::layouts_text(a.model, a.system) +
         "; per method, GPU count and precision the fastest that fits in memory is kept (parallel.*, train.mbs and "
         "train.recompute only set --mode project's configuration).\nGlobal batch: " +
         batch + " of " + std::to_string(seq) + " tokens; distributed optimizer " +
         (s.train.distributed_optimizer ? "on" : "off") + ".";
}

std::string describe_point(const MethodsExplored& e, std::size_t i, const FinetuneSettings& s,
                           const llm::workload::Assumptions& a) {
  const llm::ExplorePoint& p = e.merged.points[i];
  return std::to_string(p.gpus) + " GPUs " + method_label(e.methods[i], s.finetune.lora) + " " +
         std::string(llm::to_string(p.train.precision)) + ", " + llm::workload::layout_label(p.train, a.model.moe()) +
         ": " + hours_text(p.days) + ", " + llm::workload::cost_text(p, a);
}

std::string pareto_note(const MethodsExplored& e, const FinetuneSettings& s, const llm::workload::Assumptions& a) {
  std::vector<std::size_t> front;
  for (std::size_t i = 0; i < e.merged.points.size(); ++i) {
    if (e.merged.points[i].pareto) {
      front.push_back(i);
    }
  }
  std::sort(front.begin(), front.end(),
            [&](std::size_t x, std::size_t y) { return e.merged.points[x].days < e.merged.points[y].days; });
  std::string out = "Marked * in the pareto column: no other configuration, of any method, fine-tunes both faster "
                    "and cheaper. Fastest first:";
  for (const std::size_t i : front) {
    out += "\n" + describe_point(e, i, s, a);
  }
  return out;
}

std::string recommendation_note(const MethodsExplored& e, const FinetuneSettings& s,
                                const llm::workload::Assumptions& a) {
  const llm::ExploreResult& r = e.merged;
  const std::size_t low = llm::workload::cheapest(r.points);
  const std::string slack = "+" + fixed(100 * s.budget_slack, 0) + "% (" + key::budget_slack + ")";
  std::string out;
  if (r.fastest_within_budget) {
    const std::size_t pick = *r.fastest_within_budget;
    out = describe_point(e, pick, s, a) + " (recommended = yes): " +
          (r.points[pick].cost == r.points[low].cost
               ? "the cheapest configuration, and none whose cost is within " + slack + " of it is faster."
               : "the fastest configuration whose cost is within " + slack + " of the cheapest, " +
                     describe_point(e, low, s, a) + ".");
  }
  if (!a.price) {
    out += " No price is known, so cost is compared in GPU-hours.";
  }
  if (!s.deadline_hours) {
    return out + "\nGive a deadline with --set " + key::deadline_hours +
           "=HOURS to also get the cheapest configuration that meets it.";
  }
  const std::string deadline = fixed(*s.deadline_hours, 1) + " hours (" + key::deadline_hours + ")";
  if (r.cheapest_meeting_deadline) {
    return out + "\nWithin the deadline of " + deadline + ", the cheapest is " +
           describe_point(e, *r.cheapest_meeting_deadline, s, a) + " (recommended = deadline).";
  }
  return out + "\nNo configuration fine-tunes within " + deadline + "; the fastest is " +
         describe_point(e, llm::workload::fastest(r.points), s, a) + ".";
}

std::string comparison_text(const MethodsExplored& e, const llm::workload::Assumptions& a) {
  const llm::ExploreResult& r = e.merged;
  if (e.sweeps.size() < 2 || !r.fastest_within_budget) {
    return {};
  }
  const llm::ExplorePoint& pick = r.points[*r.fastest_within_budget];
  std::string side_by_side, elsewhere;
  for (const MethodSweep& sweep : e.sweeps) {
    const auto at = point_at(e, sweep.method, pick.gpus, pick.train.precision);
    if (at) {
      side_by_side += (side_by_side.empty() ? "" : "; ") + short_point(e, *at, a);
      continue;
    }
    const auto fewest = fewest_gpus(e, sweep.method);
    elsewhere += "; " + method_name(sweep.method) +
                 (fewest ? " needs at least " + std::to_string(*fewest) + " GPUs" : " fits at no explored GPU count");
  }
  return "on " + std::to_string(pick.gpus) + " GPUs in " + std::string(llm::to_string(pick.train.precision)) + ": " +
         side_by_side + elsewhere;
}

std::string dropped_methods_note(const MethodsExplored& e, const llm::workload::Assumptions& a) {
  std::string out;
  for (const MethodSweep& sweep : e.sweeps) {
    const std::string text = sweep.result ? llm::workload::dropped_note(*sweep.result, a)
                                          : "fits at no explored GPU count: " + sweep.failure + ".";
    if (!text.empty()) {
      out += (out.empty() ? "" : "\n") + method_name(sweep.method) + ": " + text;
    }
  }
  return out;
}

}  // namespace dgx::plugins::llm_finetune
