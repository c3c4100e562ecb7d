#include "explore_mode.hpp"

#include <algorithm>
#include <numeric>

#include <dgx/sdk/error.hpp>

#include "dgx/llm/workload/training_notes.hpp"
#include "dgx/llm/workload/training_rows.hpp"
#include "explore_notes.hpp"
#include "notes.hpp"
#include "rows.hpp"
#include <dgx/sdk/text.hpp>

namespace dgx::plugins::llm_finetune {

namespace {

using dgx::sdk::NotePlacement;

/// Marks the (hours, cost) Pareto front over every method's points and picks the recommendations.
void recommend(llm::ExploreResult& merged, const FinetuneSettings& s) {
  std::vector<llm::CostPoint> costs;
  for (const llm::ExplorePoint& p : merged.points) {
    costs.push_back({.days = p.days, .cost = p.cost});
  }
  const std::vector<bool> front = llm::pareto_front(costs);
  for (std::size_t i = 0; i < front.size(); ++i) {
    merged.points[i].pareto = front[i];
  }
  merged.fastest_within_budget = llm::fastest_within_budget(costs, s.budget_slack);
  merged.cheapest_meeting_deadline =
      s.deadline_hours ? llm::cheapest_meeting_deadline(costs, *s.deadline_hours / 24) : std::nullopt;
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
    const int gx = out.merged.points[x].gpus, gy = out.merged.points[y].gpus;
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

llm::ExploreSpace explore_space(const FinetuneSettings& s, const FinetuneJob& job) {
  llm::ExploreSpace space = llm::workload::explore_space(s);
  space.seq_len = job.seq_len;
  space.tokens = job.processed_tokens;
  return space;
}

MethodsExplored explore_methods(const dgx::sdk::Host& host, const FinetuneSettings& s,
                                const llm::workload::Assumptions& a, const FinetuneJob& job) {
  // Deadlines are in hours here: recommend() picks the deadline point over every method's points.
  const llm::ExploreOptions options{.price = a.price,
                                    .budget_slack = s.budget_slack,
                                    .deadline_days = std::nullopt,
                                    .cancelled = [&host] { return host.cancelled(); }};
  const llm::ExploreSpace space = explore_space(s, job);
  MethodsExplored out;
  const double start = host.now();
  for (const llm::FineTuneMethod method : s.methods) {
    llm::StepModel model(a.model, a.system);
    model.set_finetune(finetune_of(s, method));
    MethodSweep sweep{.method = method, .result = std::nullopt, .failure = {}};
    auto result = llm::explore(model, space, options);
    host.throw_if_cancelled();  // Ctrl-C ends the sweep early: no rows from half a space
    if (result) {
      merge(out, method, *result);
      sweep.result = std::move(result).value();
    } else {
      sweep.failure = result.error().message;
    }
    out.sweeps.push_back(std::move(sweep));
  }
  out.seconds = host.now() - start;
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
  recommend(out.merged, s);
  return out;
}

void run_explore(const dgx::sdk::Host& host, const FinetuneSettings& settings,
                 const llm::workload::Assumptions& assumptions, const FinetuneJob& job) {
  const MethodsExplored explored = explore_methods(host, settings, assumptions, job);
  const llm::ExploreResult& r = explored.merged;

  host.note(NotePlacement::before, "Assumptions", assumptions_note(settings, assumptions, job));
  host.note(NotePlacement::before, "Sweep", sweep_note(settings, assumptions));
  const RowContext context{settings, assumptions, job};
  for (std::size_t i = 0; i < r.points.size(); ++i) {
    const llm::ExplorePoint& p = r.points[i];
    dgx::sdk::Row row = finetune_row("explore", context, explored.methods[i], p.train,
                                     llm::workload::headline_of(p, assumptions), p.breakdown);
    row.field("layout", llm::workload::layout_label(p.train, assumptions.model.moe()))
        .field("pareto", p.pareto ? "*" : "")
        .field("recommended", llm::workload::recommended_mark(r, i));
    host.emit(row);
  }
  host.note(NotePlacement::after, "Pareto front (hours vs cost)", pareto_note(explored, settings, assumptions));
  host.note(NotePlacement::after, "Recommendation", recommendation_note(explored, settings, assumptions));
  if (settings.methods.size() > 1 || settings.methods.front() == llm::FineTuneMethod::lora) {
    host.note(NotePlacement::after, "Trade", trade_note(settings, assumptions, comparison_text(explored, assumptions)));
  }
  host.note(NotePlacement::after, "FLOPs", flops_note());
  if (const std::string dropped = dropped_methods_note(explored, assumptions); !dropped.empty()) {
    host.note(NotePlacement::after, "Dropped", dropped);
  }
  host.note(NotePlacement::after, "Projection",
            projection_note(assumptions) + " This sweep evaluated " +
                dgx::sdk::text::grouped(static_cast<long long>(r.evaluated)) + " layouts in " +
                dgx::sdk::text::duration(explored.seconds) + ".");
}

}  // namespace dgx::plugins::llm_finetune
