#include "dgx/llm/workload/training_notes.hpp"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <utility>
#include <vector>

#include <dgx/sdk/text.hpp>

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/flops.hpp"
#include "dgx/llm/recipe_lookup.hpp"
#include "dgx/llm/workload/calibration_summary.hpp"
#include "dgx/llm/workload/catalog_lookup.hpp"

namespace dgx::llm::workload {

namespace {

namespace text = dgx::sdk::text;

// The explorer's default ranges, as the sweep note states them.
using namespace explore_limits;

std::string range(int last) { return last > 1 ? "1-" + std::to_string(last) : "1"; }

}  // namespace

std::string model_text(const ModelConfig& m) {
  const ParameterCount params = count_parameters(m);
  std::string line = m.display + " (" + m.name + "): " + std::to_string(m.layers) + " layers, hidden " +
                     std::to_string(m.hidden) + ", " + std::to_string(m.heads) + " heads / " +
                     std::to_string(m.kv_groups) + " KV groups, " + text::si_count(params.total) + " parameters";
  if (m.moe()) {
    line += " (" + text::si_count(params.active) + " active: " + std::to_string(m.top_k) + " of " +
            std::to_string(m.experts) + " experts)";
  }
  return line;
}

std::string system_line(const TrainingSettings& s, const Assumptions& a) {
  const SystemProfile& sys = a.system;
  const std::string peaks = peaks_text(sys);
  return "System: " + sys.name + ", " + sys.display + "; " +
         (s.system_configured ? "the configuration names it" : "the workload's default") +
         ". A projection for that system, not for this machine's GPUs: " + peaks + " per GPU, " +
         text::gib(sys.hbm_bytes()) + " HBM at " + text::fixed(sys.hbm_tb_s, 2) + " TB/s, NVLink domain of " +
         std::to_string(sys.nvlink_domain) + " GPUs, " + text::fixed(sys.nic_gb_s, 0) +
         " GB/s scale-out per GPU. Other systems: --set system=NAME (" + text::join(other_systems(sys.name)) + ").";
}

std::string framework_line(const TrainingSettings& s, const Assumptions& a) {
  std::vector<std::string> others;
  for (const std::string& name : framework_names()) {
    if (name != a.framework.name) {
      others.push_back(name);
    }
  }
  return "Framework: " + a.framework.name + ", " + a.framework.display + " (released " + a.framework.released + "); " +
         (s.frameworks.empty() ? "the newest release profile" : "the configuration names it") +
         ": its kernel efficiencies and software behaviour, fitted to its published runs (configs/frameworks/" +
         a.framework.name + ".toml)" +
         (!a.framework.dense_from.empty() && !a.model.moe()
              ? "; for a dense model as this one its efficiencies are " + a.framework.dense_from +
                    "'s (no dense run of " + a.framework.name + " is published)"
              : std::string()) +
         ". Other releases: --set " + key::framework + "=NAME, or a list to compare them (" + text::join(others) + ").";
}

std::string price_line(const Assumptions& a) { return price_line(a.price_reason, a.providers); }

std::string price_line(const TrainingSettings& s, const Assumptions& a) {
  std::string line = price_line(a);
  if (s.providers.size() > 1) {
    line += " Compared in explore: " + text::join(s.providers) + " (" + key::provider + "), each at its own list " +
            "price for " + a.system.name + "; the Provider comparison note after the table sets them side by side.";
  }
  return line;
}

std::string breakdown_text(const StepBreakdown& b) {
  const std::pair<const char*, double> parts[] = {
      {"compute", b.compute}, {"TP", b.tp_comm},          {"CP", b.cp_comm},
      {"EP", b.ep_comm},      {"PP", b.pp_comm},          {"bubble", b.bubble},
      {"DP", b.dp_comm},      {"optimizer", b.optimizer}, {"stragglers", b.stragglers},
      {"offload", b.offload}};
  std::string out = text::duration(b.total()) + " =";
  bool first = true;
  for (const auto& [name, seconds] : parts) {
    if (seconds <= 0) {
      continue;
    }
    out += std::string(first ? " " : " + ") + name + " " + text::duration(seconds);
    first = false;
  }
  return out;
}

std::string memory_text(const MemoryBreakdown& m) {
  std::string out = text::gib(m.total()) + " of " + text::gib(m.capacity) + ": weights " + text::gib_number(m.weights) +
                    ", gradients " + text::gib_number(m.gradients) + ", optimizer states " +
                    text::gib_number(m.optimizer);
  if (m.fp8_weight_cache > 0) {
    out += ", FP8 weight cache " + text::gib_number(m.fp8_weight_cache);
  }
  return out + ", activations " + text::gib_number(m.activations) + ", logits " + text::gib_number(m.transient) +
         ", reserve " + text::gib_number(m.reserve) + " GiB";
}

std::string gpu_counts_text(const TrainingSettings& s) {
  std::vector<std::string> counts;
  if (!s.explore_gpus.empty()) {
    for (const int g : s.explore_gpus) {
      counts.push_back(std::to_string(g));
    }
    return text::join(counts) + " (" + key::explore_gpus + ")";
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
      counts.size() <= 4 ? text::join(counts) : counts.front() + ", " + counts[1] + ", ..., " + counts.back();
  return shown + ": powers of two from " + key::gpus_min + " to " + key::gpus_max + " (or a list: --set " +
         key::explore_gpus + "=64,512,2048)";
}

std::string layouts_text(const ModelConfig& m, const SystemProfile& system) {
  std::string layouts = "TP " + range(std::min(system.nvlink_domain, max_tp)) + " x PP " +
                        range(std::min(max_pp, m.layers)) + " x CP " + range(max_cp) + " x VP (interleaved chunks)";
  if (m.moe()) {
    layouts += " x EP " + range(m.experts);
  }
  return layouts + " x MBS " + range(max_mbs) + " x recompute none/selective/full";
}

std::string dropped_note(const ExploreResult& r, const Assumptions& a) {
  std::vector<std::string> lines;
  const std::uint64_t dropped = r.evaluated - r.feasible;
  if (dropped > 0) {
    lines.push_back(text::grouped(static_cast<long long>(dropped)) + " of " +
                    text::grouped(static_cast<long long>(r.evaluated)) + " valid layouts need more than the " +
                    text::gib(a.system.hbm_bytes()) + " of " + a.system.name +
                    " per GPU and were dropped (combinations the GPU count, heads, layers, sequence or batch do not "
                    "divide are not valid layouts and are skipped).");
  }
  std::vector<std::string> too_big, none_valid;
  for (const InfeasibleCount& c : r.infeasible) {
    if (c.valid_layouts == 0) {
      none_valid.push_back(std::to_string(c.gpus));
    } else {
      too_big.push_back(std::to_string(c.gpus) + " GPUs (the leanest of " +
                        text::grouped(static_cast<long long>(c.valid_layouts)) + " valid layouts needs " +
                        text::gib(c.leanest_bytes) + ")");
    }
  }
  if (!too_big.empty()) {
    lines.push_back("No layout fits at " + text::join(too_big, "; ") + ".");
  }
  if (!none_valid.empty()) {
    lines.push_back("No valid layout at " + text::join(none_valid) +
                    " GPUs: the model's heads, layers, sequence and the global batch do not divide over them.");
  }
  for (const std::string& note : r.notes) {  // the explorer's remarks (e.g. a precision the system lacks)
    lines.push_back(note + ".");
  }
  return text::join(lines, "\n");
}

std::string precision_list(const std::vector<Precision>& precisions) {
  std::vector<std::string> names;
  names.reserve(precisions.size());
  for (const Precision p : precisions) {
    names.emplace_back(to_string(p));
  }
  return text::join(names);
}

std::string cost_text(const ExplorePoint& p, const Assumptions& a) {
  return a.price ? text::usd(p.cost) : text::grouped(static_cast<long long>(p.gpu_hours)) + " GPU-hours";
}

std::size_t cheapest(const std::vector<ExplorePoint>& points) {
  return static_cast<std::size_t>(
      std::min_element(points.begin(), points.end(), [](const auto& x, const auto& y) { return x.cost < y.cost; }) -
      points.begin());
}

std::size_t fastest(const std::vector<ExplorePoint>& points) {
  return static_cast<std::size_t>(
      std::min_element(points.begin(), points.end(), [](const auto& x, const auto& y) { return x.days < y.days; }) -
      points.begin());
}

std::string recommended_mark(const ExploreResult& r, std::size_t i) {
  std::vector<std::string> marks;
  if (r.fastest_within_budget == i) {
    marks.emplace_back("yes");
  }
  if (r.cheapest_meeting_deadline == i) {
    marks.emplace_back("deadline");
  }
  if (r.fastest_within_budget_usd == i) {
    marks.emplace_back("budget");
  }
  return text::join(marks);
}

std::optional<std::size_t> recommended_point(const ExploreResult& r) {
  return r.fastest_within_budget ? r.fastest_within_budget : r.cheapest_meeting_deadline;
}

std::string ties_text(const ExploreResult& r, std::size_t pick, const AccuracyBand& band,
                      const DescribePoint& describe) {
  const std::vector<std::size_t> tied = tied_points(r, pick, band);
  if (tied.empty()) {
    return "Its band is " + band.label() + ": no other kept configuration trains within it, so the pick is not a tie.";
  }
  std::string out = "Its band is " + band.label() +
                    ", and these train within it: a tie, the model cannot tell them "
                    "apart from the pick (choose by what else matters: cost, GPUs free, the layout you know):";
  for (const std::size_t i : tied) {
    out += "\n" + describe(i);
  }
  return out;
}

std::string recipe_text(StepModel& model, const ExploreResult& r, std::size_t pick, const Assumptions& a,
                        const AccuracyBand& band) {
  const ExplorePoint& p = r.points[pick];
  const auto recipe = find_recipe(a.model.name, a.system.name, p.gpus, p.train.precision);
  if (!recipe) {
    return "configs/baselines holds no published run of " + a.model.name + " on " + a.system.name +
           " to hold the pick against.";
  }
  const auto compared =
      compare_with_recipe(model, p, *recipe, band, recipe_residual_of(*recipe, AccuracyModel::embedded().outcomes()));
  if (!compared) {
    return compared.error().message + ".";
  }
  return compared->line + ".";
}

std::string scope_note(const TrainingSettings& settings, const Assumptions& assumptions) {
  const int seq = settings.train.seq_len > 0 ? settings.train.seq_len : assumptions.model.seq_len;
  const std::vector<std::string> reasons =
      calibration_scope(assumptions.model, assumptions.system, settings.precisions, seq);
  std::string out;
  for (const std::string& reason : reasons) {
    out += (out.empty() ? "" : "\n") + reason + ".";
  }
  return out.empty() ? out
                     : out + "\nThe stated accuracy was measured on calibrated runs; expect larger errors here; each "
                             "row's band says how much, and its JSON accuracy field why.";
}

std::string sweep_text(const TrainingSettings& s, const Assumptions& a, const SweepParts& parts) {
  const std::string batch = s.gbs_per_gpu > 0
                                ? std::to_string(s.gbs_per_gpu) + " sequences per GPU (" + key::gbs_per_gpu + ")"
                                : std::to_string(s.train.gbs) + " sequences at every GPU count (" + key::gbs + "; " +
                                      key::gbs_per_gpu + " = 0)";
  const int seq = s.train.seq_len > 0 ? s.train.seq_len : a.model.seq_len;
  return "GPU counts: " + gpu_counts_text(s) + "." +
         (parts.methods.empty() ? "" : "\nMethods: " + parts.methods + ".") +
         "\nPrecisions: " + precision_list(s.precisions) + ".\nLayouts: every valid combination of " +
         layouts_text(a.model, a.system) + "; per " + parts.kept_per +
         " the fastest that fits in memory is kept (gpus, parallel.*, train.mbs and train.recompute only set "
         "--mode project's configuration).\nGlobal batch: " +
         batch + " of " + std::to_string(seq) + " tokens; " + parts.optimizer + ".";
}

std::string pareto_front_text(const std::vector<ExplorePoint>& points, const std::string& heading,
                              const DescribePoint& describe) {
  std::vector<std::size_t> front;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (points[i].pareto) {
      front.push_back(i);
    }
  }
  std::sort(front.begin(), front.end(), [&](std::size_t x, std::size_t y) { return points[x].days < points[y].days; });
  std::string out = heading;
  for (const std::size_t i : front) {
    out += "\n" + describe(i);
  }
  return out;
}

namespace {

/// The budget's lines of a recommendation: the fastest within it, or that none is; with a deadline, both at once.
std::string budget_text(const ExploreResult& r, bool priced, const RecommendationWords& words,
                        const DescribePoint& describe) {
  if (!words.budget) {
    return {};
  }
  const std::string budget = text::usd(*words.budget) + " (" + words.budget_key + ")";
  if (!priced) {
    return "\nNo price is known, so the budget of " + budget + " cannot be held against the costs (GPU-hours).";
  }
  std::string out =
      r.fastest_within_budget_usd
          ? "\nWithin the budget of " + budget + ", the fastest is " + describe(*r.fastest_within_budget_usd) +
                " (recommended = budget)."
          : "\nNo configuration costs at most " + budget + "; the cheapest is " + describe(cheapest(r.points)) + ".";
  if (!words.deadline) {
    return out;
  }
  if (r.cheapest_meeting_deadline && r.points[*r.cheapest_meeting_deadline].cost <= *words.budget) {
    return out + "\nBoth: " + describe(*r.cheapest_meeting_deadline) + " meets the deadline within the budget.";
  }
  return out + "\nNo configuration meets both the deadline and the budget" +
         (r.cheapest_meeting_deadline ? ": the cheapest that " + words.verb + " within the deadline costs more." : ".");
}

}  // namespace

std::string recommendation_text(const ExploreResult& r, bool priced, const RecommendationWords& words,
                                const DescribePoint& describe) {
  std::string out;
  if (r.fastest_within_budget) {
    const std::size_t pick = *r.fastest_within_budget;
    const std::size_t low = cheapest(r.points);
    out = describe(pick) + " (recommended = yes): ";
    out += pick == low || r.points[pick].cost == r.points[low].cost
               ? "the cheapest configuration, and none whose cost is within " + words.slack + " of it is faster."
               : "the fastest configuration whose cost is within " + words.slack + " of the cheapest" +
                     words.cheapest_is + describe(low) + ".";
  }
  if (!priced) {
    out += " No price is known, so cost is compared in GPU-hours.";
  }
  if (!words.deadline) {
    std::string placeholder = words.deadline_unit;
    std::transform(placeholder.begin(), placeholder.end(), placeholder.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return out + "\nGive a deadline with --set " + words.deadline_key + "=" + placeholder +
           " to also get the cheapest configuration that meets it" +
           (words.budget ? "." : ", or a budget with --set " + words.budget_key + "=USD for the fastest within it.") +
           budget_text(r, priced, words, describe);
  }
  const std::string deadline =
      text::fixed(*words.deadline, 1) + " " + words.deadline_unit + " (" + words.deadline_key + ")";
  if (r.cheapest_meeting_deadline) {
    return out + "\nWithin the deadline of " + deadline + ", the cheapest is " +
           describe(*r.cheapest_meeting_deadline) + " (recommended = deadline)." +
           budget_text(r, priced, words, describe);
  }
  return out + "\nNo configuration " + words.verb + " within " + deadline + "; the fastest is " +
         describe(fastest(r.points)) + "." + budget_text(r, priced, words, describe);
}

namespace {

double process_cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

}  // namespace

SweepClock::SweepClock(const sdk::Host& host)
    : host_(host), wall_start_(host.now()), cpu_start_(process_cpu_seconds()) {}

SweepTime SweepClock::elapsed() const {
  return {.wall = host_.now() - wall_start_, .cpu = process_cpu_seconds() - cpu_start_};
}

std::string sweep_summary(std::uint64_t layouts, const SweepTime& took) {
  return "This sweep evaluated " + text::grouped(static_cast<long long>(layouts)) + " layouts in " +
         text::duration(took.wall) + " (" + text::duration(took.cpu) + " of CPU time).";
}

void recommend(ExploreResult& result, double budget_slack, std::optional<double> deadline_days,
               std::optional<double> budget_usd) {
  std::vector<CostPoint> costs;
  for (const ExplorePoint& p : result.points) {
    costs.push_back({.days = p.days, .cost = p.cost});
  }
  const std::vector<bool> front = pareto_front(costs);
  for (std::size_t i = 0; i < front.size(); ++i) {
    result.points[i].pareto = front[i];
  }
  result.fastest_within_budget = fastest_within_budget(costs, budget_slack);
  result.cheapest_meeting_deadline = deadline_days ? cheapest_meeting_deadline(costs, *deadline_days) : std::nullopt;
  result.fastest_within_budget_usd = budget_usd ? fastest_within_cost(costs, *budget_usd) : std::nullopt;
}

}  // namespace dgx::llm::workload
