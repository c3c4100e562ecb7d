#include "explore_notes.hpp"

#include <algorithm>
#include <cmath>

#include "format.hpp"
#include "params.hpp"
#include "rows.hpp"

namespace dgx::plugins::llm_pretrain {

namespace {

std::string deadline_text(const llm::ExploreResult& r, const PretrainSettings& s, const Assumptions& a) {
  if (!s.deadline_days) {
    return "Give a deadline with --set " + std::string(key::deadline_days) +
           "=DAYS to also get the cheapest configuration that meets it.";
  }
  const std::string deadline = fixed(*s.deadline_days, 1) + " days (" + key::deadline_days + ")";
  if (r.cheapest_meeting_deadline) {
    return "Within the deadline of " + deadline + ", the cheapest is " +
           describe_point(r.points[*r.cheapest_meeting_deadline], a) + " (recommended = deadline).";
  }
  return "No configuration trains within " + deadline + "; the fastest is " +
         describe_point(r.points[fastest(r.points)], a) + ".";
}

}  // namespace

std::string describe_point(const llm::ExplorePoint& p, const Assumptions& a) {
  return std::to_string(p.gpus) + " GPUs " + std::string(llm::to_string(p.train.precision)) + ", " +
         layout_label(p.train, a.model.moe()) + ": " + fixed(p.days, p.days < 10 ? 2 : 1) + " days, " + cost_text(p, a);
}

std::string sweep_note(const PretrainSettings& s, const Assumptions& a) {
  const llm::ModelConfig& m = a.model;
  const std::string layouts = llm::workload::layouts_text(m, a.system);
  const std::string batch = s.gbs_per_gpu > 0
                                ? std::to_string(s.gbs_per_gpu) + " sequences per GPU (" + key::gbs_per_gpu + ")"
                                : std::to_string(s.train.gbs) + " sequences at every GPU count (" + key::gbs + "; " +
                                      key::gbs_per_gpu + " = 0)";
  const int seq = s.train.seq_len > 0 ? s.train.seq_len : m.seq_len;
  return "GPU counts: " + gpu_counts_text(s) + ".\nPrecisions: " + precision_list(s.precisions) +
         ".\nLayouts: every valid combination of " + layouts +
         "; per GPU count and precision the fastest that fits in memory is kept (parallel.*, train.mbs and "
         "train.recompute only set --mode project's configuration).\nGlobal batch: " +
         batch + " of " + std::to_string(seq) + " tokens; " +
         (s.train.fsdp ? std::string("Megatron FSDP layouts (") + key::fsdp + ")"
                       : std::string("distributed optimizer ") + (s.train.distributed_optimizer ? "on" : "off")) +
         "; pipeline split " + std::string(llm::to_string(s.train.pipeline_split)) + ".";
}

std::string pareto_note(const llm::ExploreResult& r, const Assumptions& a) {
  std::vector<std::size_t> front;
  for (std::size_t i = 0; i < r.points.size(); ++i) {
    if (r.points[i].pareto) {
      front.push_back(i);
    }
  }
  std::sort(front.begin(), front.end(),
            [&](std::size_t x, std::size_t y) { return r.points[x].days < r.points[y].days; });
  std::string out =
      "Marked * in the pareto column: no other configuration trains both faster and cheaper. Fastest first:";
  for (const std::size_t i : front) {
    out += "\n" + describe_point(r.points[i], a);
  }
  return out;
}

std::string recommendation_note(const llm::ExploreResult& r, const PretrainSettings& s, const Assumptions& a) {
  std::string out;
  const double percent = 100 * s.budget_slack;
  const std::string slack = "+" + fixed(percent, percent == std::round(percent) ? 0 : 1) + "% (" + key::budget_slack +
                            " = " + fixed(s.budget_slack, percent == std::round(percent) ? 2 : 3) + ")";
  if (r.fastest_within_budget) {
    const std::size_t pick = *r.fastest_within_budget;
    const std::size_t low = cheapest(r.points);
    out = describe_point(r.points[pick], a) + " (recommended = yes): ";
    out += pick == low || r.points[pick].cost == r.points[low].cost
               ? "the cheapest configuration, and none whose cost is within " + slack + " of it is faster."
               : "the fastest configuration whose cost is within " + slack + " of the cheapest; the cheapest is " +
                     describe_point(r.points[low], a) + ".";
  }
  if (!a.price) {
    out += " No price is known, so cost is compared in GPU-hours.";
  }
  return out + "\n" + deadline_text(r, s, a);
}

namespace {

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
  return (change >= 0 ? "+" : "") + fixed(change, 1) + "%";
}

}  // namespace

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
  std::string out = "The same job (" + newest.assumptions->model.name + ", " + si_count(job.train.tokens) +
                    " tokens, " + std::to_string(job.gpus) + " x " + newest.assumptions->system.name + ", " +
                    std::string(llm::to_string(job.train.precision)) + ": the recommended point of " +
                    newest.assumptions->framework.name + "), each release with its fastest layout:";
  const llm::ExplorePoint* oldest = nullptr;
  const Assumptions* oldest_assumptions = nullptr;
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
  const std::string money = newest.assumptions->price ? usd(std::abs(saved))
                                                      : grouped(static_cast<long long>(std::abs(saved))) + " GPU-hours";
  out += "\nUpgrading from " + oldest_assumptions->framework.name + " to " + newest.assumptions->framework.name +
         (days >= 0 ? " saves " : " costs ") + fixed(std::abs(days), 1) + " days (" +
         percent_change(oldest->days, job.days) + ") and " + (saved >= 0 ? "saves " : "costs ") + money + " (" +
         cost_text(*oldest, *oldest_assumptions) + " -> " + cost_text(job, *newest.assumptions) + ") for the same job.";
  return out;
}

}  // namespace dgx::plugins::llm_pretrain
