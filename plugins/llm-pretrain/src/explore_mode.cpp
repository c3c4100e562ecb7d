#include "explore_mode.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include <dgx/sdk/error.hpp>

#include "explore_notes.hpp"
#include "format.hpp"
#include "notes.hpp"
#include "rows.hpp"

namespace dgx::plugins::llm_pretrain {

namespace {

using dgx::sdk::NotePlacement;

}  // namespace

llm::ExploreSpace explore_space(const PretrainSettings& s) {
  llm::ExploreSpace space = llm::workload::explore_space(s);
  space.tokens = s.train.tokens;
  return space;
}

namespace {

/// One sweep of the explorer under one framework release.
struct ReleaseRun {
  Assumptions assumptions;
  llm::ExploreResult result;
  double seconds = 0;
};

ReleaseRun explore_release(const dgx::sdk::Host& host, const PretrainSettings& settings, Assumptions assumptions) {
  llm::StepModel model(assumptions.model, assumptions.system);
  const llm::ExploreOptions options{.price = assumptions.price,
                                    .budget_slack = settings.budget_slack,
                                    .deadline_days = settings.deadline_days,
                                    .cancelled = [&host] { return host.cancelled(); }};
  const double start = host.now();
  auto result = llm::explore(model, explore_space(settings), options);
  const double elapsed = host.now() - start;
  host.throw_if_cancelled();  // Ctrl-C ends the sweep early: no rows from half a space
  if (!result) {
    throw dgx::sdk::InvalidArgument(result.error().message +
                                    " (other GPU counts, a shorter sequence or a system with more HBM may fit)");
  }
  return ReleaseRun{.assumptions = std::move(assumptions), .result = std::move(result).value(), .seconds = elapsed};
}

void emit_rows(const dgx::sdk::Host& host, const ReleaseRun& run, bool framework_column) {
  const llm::ExploreResult& r = run.result;
  const Assumptions& a = run.assumptions;
  for (std::size_t i = 0; i < r.points.size(); ++i) {
    const llm::ExplorePoint& p = r.points[i];
    dgx::sdk::Row row = projected_row("explore", a, p.train, headline_of(p, a), p.breakdown, framework_column);
    row.field("layout", layout_label(p.train, a.model.moe()))
        .field("pareto", p.pareto ? "*" : "")
        .field("recommended", recommended_mark(r, i));
    host.emit(row);
  }
}

}  // namespace

void run_explore(const dgx::sdk::Host& host, const PretrainSettings& settings, const Assumptions& assumptions) {
  std::vector<ReleaseRun> runs;
  for (const std::string& name : framework_names_of(settings)) {
    runs.push_back(explore_release(
        host, settings, name == assumptions.framework.name ? assumptions : with_framework(assumptions, name)));
  }
  const bool compare = runs.size() > 1;
  // The newest release compared leads: its front and recommendation are the answer, the others its history.
  const auto newest = std::max_element(runs.begin(), runs.end(), [](const ReleaseRun& x, const ReleaseRun& y) {
    return x.assumptions.framework.released < y.assumptions.framework.released;
  });
  const Assumptions& lead = newest->assumptions;
  host.note(NotePlacement::before, "Assumptions", assumptions_note(settings, lead));
  host.note(NotePlacement::before, "Sweep", sweep_note(settings, lead));
  if (const std::string scope = scope_note(settings, lead); !scope.empty()) {
    host.note(NotePlacement::before, "Outside calibration", scope);
  }
  std::uint64_t evaluated = 0;
  double seconds = 0;
  for (const ReleaseRun& run : runs) {
    emit_rows(host, run, compare);
    evaluated += run.result.evaluated;
    seconds += run.seconds;
  }
  host.note(NotePlacement::after, "Pareto front (days vs cost)", pareto_note(newest->result, lead));
  host.note(NotePlacement::after, "Recommendation", recommendation_note(newest->result, settings, lead));
  if (compare) {
    std::vector<ReleaseOutcome> outcomes;
    for (const ReleaseRun& run : runs) {
      outcomes.push_back(ReleaseOutcome{.assumptions = &run.assumptions, .result = &run.result});
    }
    host.note(NotePlacement::after, "Framework upgrade", upgrade_note(outcomes));
  }
  if (const std::string dropped = dropped_note(newest->result, lead); !dropped.empty()) {
    host.note(NotePlacement::after, "Dropped", dropped);
  }
  host.note(NotePlacement::after, "Projection",
            projection_note(lead) + " This sweep evaluated " + grouped(static_cast<long long>(evaluated)) +
                " layouts in " + duration(seconds) + ".");
}

}  // namespace dgx::plugins::llm_pretrain
