#include "explore_notes.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "format.hpp"
#include "params.hpp"
#include "rows.hpp"

namespace dgx::plugins::llm_pretrain {

namespace {

// The explorer's default ranges, as the sweep note states them.
using namespace llm::explore_limits;

std::string join(const std::vector<std::string>& items, const std::string& separator = ", ") {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    out += (i != 0 ? separator : "") + items[i];
  }
  return out;
}

std::string gpu_counts_text(const PretrainSettings& s) {
  std::vector<std::string> counts;
  if (!s.explore_gpus.empty()) {
    for (const int g : s.explore_gpus) {
      counts.push_back(std::to_string(g));
    }
    return join(counts) + " (" + key::explore_gpus + ")";
  }
  for (long long g = 1; g <= s.gpus_max; g *= 2) {
    if (g >= s.gpus_min) {
      counts.push_back(std::to_string(g));
    }
  }
  if (counts.empty()) {
    return "none: no power of two lies between " + std::string(key::gpus_min) + " and " + key::gpus_max;
  }
  const std::string shown =
      counts.size() <= 4 ? join(counts) : counts.front() + ", " + counts[1] + ", ..., " + counts.back();
  return shown + ": powers of two from " + key::gpus_min + " to " + key::gpus_max + " (or a list: --set " +
         key::explore_gpus + "=64,512,2048)";
}

std::string range(int last) { return last > 1 ? "1-" + std::to_string(last) : "1"; }

std::string cost_text(const llm::ExplorePoint& p, const Assumptions& a) {
  return a.price ? usd(p.cost) : grouped(static_cast<long long>(p.gpu_hours)) + " GPU-hours";
}

std::string precision_list(const std::vector<llm::Precision>& precisions) {
  std::vector<std::string> names;
  names.reserve(precisions.size());
  for (const llm::Precision p : precisions) {
    names.emplace_back(llm::to_string(p));
  }
  return join(names);
}

std::size_t cheapest(const std::vector<llm::ExplorePoint>& points) {
  return static_cast<std::size_t>(
      std::min_element(points.begin(), points.end(), [](const auto& x, const auto& y) { return x.cost < y.cost; }) -
      points.begin());
}

std::size_t fastest(const std::vector<llm::ExplorePoint>& points) {
  return static_cast<std::size_t>(
      std::min_element(points.begin(), points.end(), [](const auto& x, const auto& y) { return x.days < y.days; }) -
      points.begin());
}

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
  std::string layouts = "TP " + range(std::min(a.system.nvlink_domain, max_tp)) + " x PP " +
                        range(std::min(max_pp, m.layers)) + " x CP " + range(max_cp) + " x VP (interleaved chunks)";
  if (m.moe()) {
    layouts += " x EP " + range(m.experts);
  }
  layouts += " x MBS " + range(max_mbs) + " x recompute none/selective/full";
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

std::string dropped_note(const llm::ExploreResult& r, const Assumptions& a) {
  std::vector<std::string> lines;
  const std::uint64_t dropped = r.evaluated - r.feasible;
  if (dropped > 0) {
    lines.push_back(grouped(static_cast<long long>(dropped)) + " of " + grouped(static_cast<long long>(r.evaluated)) +
                    " valid layouts need more than the " + gib(a.system.hbm_bytes()) + " of " + a.system.name +
                    " per GPU and were dropped (combinations the GPU count, heads, layers, sequence or batch do not "
                    "divide are not valid layouts and are skipped).");
  }
  std::vector<std::string> too_big, none_valid;
  for (const llm::InfeasibleCount& c : r.infeasible) {
    if (c.valid_layouts == 0) {
      none_valid.push_back(std::to_string(c.gpus));
    } else {
      too_big.push_back(std::to_string(c.gpus) + " GPUs (the leanest of " +
                        grouped(static_cast<long long>(c.valid_layouts)) + " valid layouts needs " +
                        gib(c.leanest_bytes) + ")");
    }
  }
  if (!too_big.empty()) {
    lines.push_back("No layout fits at " + join(too_big, "; ") + ".");
  }
  if (!none_valid.empty()) {
    lines.push_back("No valid layout at " + join(none_valid) +
                    " GPUs: the model's heads, layers, sequence and the global batch do not divide over them.");
  }
  for (const std::string& note : r.notes) {  // the explorer's remarks (e.g. a precision the system lacks)
    lines.push_back(note + ".");
  }
  return join(lines, "\n");
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
