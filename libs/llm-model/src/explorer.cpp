#include "dgx/llm/explorer.hpp"

#include <functional>

#include "dgx/llm/memory_model.hpp"

#include "layout_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <numeric>
#include <utility>

namespace dgx::llm {

namespace {

using namespace explore_limits;

std::vector<int> range(int first, int last) {
  std::vector<int> values(static_cast<std::size_t>(std::max(0, last - first + 1)));
  std::iota(values.begin(), values.end(), first);
  return values;
}

std::vector<int> or_default(const std::vector<int>& given, const std::vector<int>& fallback) {
  return given.empty() ? fallback : given;
}

std::vector<int> gpu_counts(const ExploreSpace& space) {
  if (!space.gpu_counts.empty()) {
    return space.gpu_counts;
  }
  std::vector<int> counts;
  for (long long g = 1; g <= space.gpus_max; g *= 2) {
    if (g >= space.gpus_min) {
      counts.push_back(static_cast<int>(g));
    }
  }
  return counts;
}

std::string format(const char* fmt, double a, double b = 0, double c = 0) {
  char text[160];
  std::snprintf(text, sizeof text, fmt, a, b, c);
  return text;
}

std::string describe_point(const ExplorePoint& p, const std::string& unit) {
  const Layout& l = p.layout.layout;
  const std::string cost = unit == "USD" ? format("$%.3gM", p.cost / 1e6) : format("%.3g GPU-hours", p.cost);
  return std::to_string(p.gpus) + " GPUs " + std::string(to_string(p.train.precision)) + " (tp" + std::to_string(l.tp) +
         " pp" + std::to_string(l.pp) + " cp" + std::to_string(l.cp) + " vp" + std::to_string(l.vp) + " ep" +
         std::to_string(l.ep) + (l.etp > 0 ? " etp" + std::to_string(l.etp) : std::string()) + " mbs" +
         std::to_string(p.train.mbs) + " gbs" + std::to_string(p.train.gbs) + " recompute " +
         std::string(to_string(p.train.recompute)) + "): " + format("%.1f days, ", p.days) + cost;
}

/// The sweep: per (precision, shape) the per-layer costs are looked up once; the loops over GPU counts, pp and
/// vp only compose numbers (no allocation).
class Sweep {
public:
  Sweep(StepModel& model, const ExploreSpace& space) : model_(model), space_(space) {
    const ModelConfig& m = model.model();
    const int domain = model.system().nvlink_domain;
    tp_ = or_default(space.tp, range(1, std::min(domain, max_tp)));
    pp_ = or_default(space.pp, range(1, std::min(max_pp, m.layers)));
    cp_ = or_default(space.cp, range(1, max_cp));
    vp_ = or_default(space.vp, range(1, m.layers));
    ep_ = or_default(space.ep, range(1, m.experts));
    mbs_ = or_default(space.mbs, range(1, max_mbs));
    if (!m.moe()) {
      etp_ = {kAutoEtp};  // no experts: nothing to split
    } else if (!space.etp.empty()) {
      etp_ = space.etp;
    } else {
      for (const int etp : {1, 2, 4, 8}) {
        if (etp <= domain) {
          etp_.push_back(etp);
        }
      }
    }
    gpus_ = gpu_counts(space);
    // The pipeline split depends on pp and vp only: keep, per pp, the vp values the split rule accepts.
    for (const int pp : pp_) {
      std::vector<int> fitting;
      for (const int vp : vp_) {
        if (split_pipeline(m.layers, pp, vp, space.pipeline_split)) {
          fitting.push_back(vp);
        }
      }
      vp_by_pp_.push_back(std::move(fitting));
    }
    valid_.assign(gpus_.size(), 0);
    leanest_.assign(gpus_.size(), std::numeric_limits<double>::infinity());
  }

  [[nodiscard]] const std::vector<int>& gpus() const { return gpus_; }

  /// How many valid layouts the sweep met at GPU count index g, and the least memory one of them needs.
  [[nodiscard]] InfeasibleCount diagnose(std::size_t g) const {
    return InfeasibleCount{.gpus = gpus_[g], .valid_layouts = valid_[g], .leanest_bytes = valid_[g] ? leanest_[g] : 0};
  }

  /// Best feasible point per GPU count for one precision (gpus == 0 where none).
  std::vector<ExplorePoint> run(Precision precision, std::uint64_t& evaluated, std::uint64_t& feasible,
                                const std::function<bool()>& cancelled) {
    std::vector<ExplorePoint> best(gpus_.size());
    TrainConfig train;
    train.precision = precision;
    train.seq_len = space_.seq_len;
    train.tokens = space_.tokens;
    train.distributed_optimizer = space_.distributed_optimizer;
    train.fsdp = space_.fsdp;
    train.offload_layers = space_.offload_layers;
    train.pipeline_split = space_.pipeline_split;
    train.flops_convention = space_.flops_convention;
    train.recompute_modules = space_.recompute_modules;
    train.moe_dispatcher = space_.moe_dispatcher;
    train.cuda_graphs = space_.cuda_graphs;
    for (const Recompute recompute : space_.recomputes) {
      train.recompute = recompute;
      for (const int tp : tp_) {
        for (const int cp : cp_) {
          for (const int ep : ep_) {
            for (const int etp : etp_) {
              for (const int mbs : mbs_) {
                if (cancelled && cancelled()) {
                  return {};
                }
                train.layout = Layout{.tp = tp, .pp = 1, .cp = cp, .vp = 1, .ep = ep, .etp = etp};
                train.mbs = mbs;
                sweep_shape(train, best, evaluated, feasible);
              }
            }
          }
        }
      }
    }
    return best;
  }

private:
  void sweep_shape(TrainConfig& train, std::vector<ExplorePoint>& best, std::uint64_t& evaluated,
                   std::uint64_t& feasible) {
    const ModelConfig& m = model_.model();
    const SystemProfile& system = model_.system();
    train.gbs = 1;  // the shape rules do not look at the batch
    if (detail::check_shape(m, system, train) != detail::LayoutIssue::none) {
      return;
    }
    const ShapeCost* cost = nullptr;  // looked up on the first valid layout of the shape
    ResolvedLayout resolved;
    for (std::size_t g = 0; g < gpus_.size(); ++g) {
      const long long gbs = space_.batch.gbs_for(gpus_[g]);
      if (gbs < 1 || gbs > std::numeric_limits<int>::max()) {
        continue;
      }
      train.gbs = static_cast<int>(gbs);
      for (std::size_t p = 0; p < pp_.size(); ++p) {
        const int pp = pp_[p];
        if (gpus_[g] % (train.layout.tp * train.layout.cp * pp) != 0) {
          continue;
        }
        for (const int vp : vp_by_pp_[p]) {
          train.layout.pp = pp;
          train.layout.vp = vp;
          train.ep_overlap = space_.ep_overlap && m.moe() && (pp == 1 || vp > 1);
          if (detail::check_layout(m, system, gpus_[g], train, resolved) != detail::LayoutIssue::none) {
            continue;
          }
          if (cost == nullptr) {
            cost = &model_.shape_cost(shape_key(train, resolved));
          }
          evaluate(g, train, resolved, *cost, best, evaluated, feasible);
        }
      }
    }
  }

  void evaluate(std::size_t g, const TrainConfig& requested, const ResolvedLayout& resolved, const ShapeCost& cost,
                std::vector<ExplorePoint>& best, std::uint64_t& evaluated, std::uint64_t& feasible) {
    ++evaluated;
    MemoryBreakdown memory = model_.memory(requested, resolved, cost.memory).peak();
    ++valid_[g];
    leanest_[g] = std::min(leanest_[g], memory.total());
    TrainConfig train = requested;
    if (!memory.fits()) {
      if (const auto layers = model_.fitting_offload(requested, resolved, cost.memory)) {
        train.offload_layers = *layers;  // auto offloading makes it fit
        memory = model_.memory(train, resolved, cost.memory).peak();
      }
    }
    const StepBreakdown breakdown = model_.step_breakdown(resolved, train, cost);
    if (!memory.fits()) {
      return;
    }
    ++feasible;
    const double step = breakdown.total();
    ExplorePoint& slot = best[g];
    if (slot.gpus == 0 || step < slot.step_time_s || (step == slot.step_time_s && memory.total() < slot.memory_bytes)) {
      slot.gpus = gpus_[g];
      slot.train = train;
      slot.train.seq_len = resolved.seq_len;
      slot.layout = resolved;
      slot.step_time_s = step;
      slot.memory_bytes = memory.total();
      slot.breakdown = breakdown;
    }
  }

  StepModel& model_;
  const ExploreSpace& space_;
  std::vector<int> tp_, pp_, cp_, vp_, ep_, etp_, mbs_, gpus_;
  std::vector<std::vector<int>> vp_by_pp_;  ///< per entry of pp_: the vp values its pipeline split accepts
  std::vector<std::uint64_t> valid_;        ///< per GPU count: layouts evaluated
  std::vector<double> leanest_;             ///< per GPU count: least memory per GPU among them
};

/// Fills throughput, MFU, days and cost of a kept point.
void complete(ExplorePoint& p, const StepModel& model, const std::optional<Price>& price) {
  const TrainConfig& t = p.train;
  p.tokens_per_s = static_cast<double>(t.seq_len) * t.gbs / p.step_time_s;
  p.tokens_per_s_per_gpu = p.tokens_per_s / p.gpus;
  const double flops = model.flops_per_sequence(t.seq_len, t.flops_convention);
  p.mfu = t.gbs * flops / p.step_time_s / p.gpus / model.system().dense_peak_flops(t.precision);
  p.days = t.tokens / p.tokens_per_s / 86400.0;
  p.gpu_hours = p.days * 24.0 * p.gpus;
  p.cost = price ? p.gpu_hours * price->usd_per_gpu_hour : p.gpu_hours;
}

/// Why no GPU count has a feasible layout: the least memory any valid layout needs, or that none is valid.
std::string why_none_fits(const std::vector<InfeasibleCount>& counts, const SystemProfile& system) {
  double leanest = std::numeric_limits<double>::infinity();
  for (const InfeasibleCount& c : counts) {
    if (c.valid_layouts > 0) {
      leanest = std::min(leanest, c.leanest_bytes);
    }
  }
  if (!std::isfinite(leanest)) {
    return "; no layout is valid at these GPU counts";
  }
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  return "; the leanest needs " + format("%.1f GiB per GPU, ", leanest / kGiB) + system.name + " has " +
         format("%.1f GiB", system.hbm_bytes() / kGiB);
}

void recommend(ExploreResult& result, const ExploreOptions& options) {
  std::vector<CostPoint> costs;
  for (const ExplorePoint& p : result.points) {
    costs.push_back(CostPoint{.days = p.days, .cost = p.cost});
  }
  const std::vector<bool> front = pareto_front(costs);
  for (std::size_t i = 0; i < front.size(); ++i) {
    result.points[i].pareto = front[i];
  }
  result.fastest_within_budget = fastest_within_budget(costs, options.budget_slack);
  if (result.fastest_within_budget) {
    const auto cheapest = std::min_element(costs.begin(), costs.end(),
                                           [](const CostPoint& a, const CostPoint& b) { return a.cost < b.cost; });
    result.recommendation =
        "fastest within " + format("%.0f%%", options.budget_slack * 100) +
        " of the cheapest cost: " + describe_point(result.points[*result.fastest_within_budget], result.cost_unit) +
        "; the cheapest is " + describe_point(result.points[cheapest - costs.begin()], result.cost_unit);
  }
  if (options.deadline_days) {
    result.cheapest_meeting_deadline = cheapest_meeting_deadline(costs, *options.deadline_days);
    result.recommendation +=
        result.cheapest_meeting_deadline
            ? "; cheapest within the deadline of " + format("%.1f days: ", *options.deadline_days) +
                  describe_point(result.points[*result.cheapest_meeting_deadline], result.cost_unit)
            : "; no configuration meets the deadline of " + format("%.1f days", *options.deadline_days);
  }
  if (options.budget_usd) {
    result.fastest_within_budget_usd = fastest_within_cost(costs, *options.budget_usd);
    result.recommendation +=
        result.fastest_within_budget_usd
            ? "; fastest within the budget of " + format("%.4g: ", *options.budget_usd) +
                  describe_point(result.points[*result.fastest_within_budget_usd], result.cost_unit)
            : "; no configuration costs at most " + format("%.4g", *options.budget_usd);
  }
  if (!options.price) {
    result.recommendation += " (no price given: cost is GPU-hours)";
  }
}

}  // namespace

std::vector<bool> pareto_front(std::span<const CostPoint> points) {
  std::vector<bool> front(points.size(), true);
  for (std::size_t i = 0; i < points.size(); ++i) {
    for (std::size_t j = 0; j < points.size() && front[i]; ++j) {
      const bool no_worse = points[j].days <= points[i].days && points[j].cost <= points[i].cost;
      const bool better = points[j].days < points[i].days || points[j].cost < points[i].cost;
      front[i] = !(j != i && no_worse && better);
    }
  }
  return front;
}

namespace {

/// The index of the best point among those `eligible`, by (primary, secondary) key, both minimized.
template <class Eligible, class Key>
std::optional<std::size_t> best_index(std::span<const CostPoint> points, Eligible eligible, Key key) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (eligible(points[i]) && (!best || key(points[i]) < key(points[*best]))) {
      best = i;
    }
  }
  return best;
}

}  // namespace

std::optional<std::size_t> fastest_within_budget(std::span<const CostPoint> points, double slack) {
  if (points.empty()) {
    return std::nullopt;
  }
  const double cheapest = std::min_element(points.begin(), points.end(), [](const CostPoint& a, const CostPoint& b) {
                            return a.cost < b.cost;
                          })->cost;
  return best_index(
      points, [&](const CostPoint& p) { return p.cost <= cheapest * (1 + slack); },
      [](const CostPoint& p) { return std::pair(p.days, p.cost); });
}

std::optional<std::size_t> fastest_within_cost(std::span<const CostPoint> points, double max_cost) {
  return best_index(
      points, [&](const CostPoint& p) { return p.cost <= max_cost; },
      [](const CostPoint& p) { return std::pair(p.days, p.cost); });
}

std::optional<std::size_t> cheapest_meeting_deadline(std::span<const CostPoint> points, double deadline_days) {
  return best_index(
      points, [&](const CostPoint& p) { return p.days <= deadline_days; },
      [](const CostPoint& p) { return std::pair(p.cost, p.days); });
}

Expected<ExploreResult> explore(StepModel& model, const ExploreSpace& space, const ExploreOptions& options) {
  if (space.precisions.empty()) {
    return Error{"explore: no precision to sweep"};
  }
  if (space.batch.value < 1) {
    return Error{"explore: the global batch rule needs a positive value (got " + std::to_string(space.batch.value) +
                 ")"};
  }
  ExploreResult result;
  result.cost_unit = options.price ? "USD" : "GPU-hours";
  ExploreSpace swept = space;
  const Software& software = model.system().software;
  if (!space.fsdp && space.distributed_optimizer && !software.distributed_optimizer) {
    swept.fsdp = true;
    result.notes.push_back("framework " + software.framework +
                           " has no Megatron distributed optimizer: layouts are swept with FSDP (parallel.fsdp)");
  }
  Sweep sweep(model, swept);
  std::vector<std::vector<ExplorePoint>> per_precision;
  for (const Precision precision : space.precisions) {
    if (!model.system().supports(precision)) {
      result.notes.push_back(model.system().name + " does not support " + std::string(to_string(precision)) +
                             ": skipped");
      per_precision.emplace_back();
      continue;
    }
    per_precision.push_back(sweep.run(precision, result.evaluated, result.feasible, options.cancelled));
    if (options.cancelled && options.cancelled()) {
      return Error{"explore: cancelled"};
    }
  }
  for (std::size_t g = 0; g < sweep.gpus().size(); ++g) {
    bool any = false;
    for (const auto& points : per_precision) {
      if (!points.empty() && points[g].gpus != 0) {
        result.points.push_back(points[g]);
        complete(result.points.back(), model, options.price);
        any = true;
      }
    }
    if (!any) {
      result.infeasible.push_back(sweep.diagnose(g));
    }
  }
  if (result.points.empty()) {
    return Error{"explore: no feasible configuration of " + model.model().name + " on " + model.system().name +
                 " in the swept space (" + std::to_string(result.evaluated) + " layouts evaluated" +
                 why_none_fits(result.infeasible, model.system()) + ")"};
  }
  recommend(result, options);
  return result;
}

}  // namespace dgx::llm
