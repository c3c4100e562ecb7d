#include "plugin.hpp"

#include <algorithm>
#include <utility>

#include <dgx/sdk/error.hpp>
#include <dgx/sdk/text.hpp>

#include "dgx/llm/workload/plugin_spec.hpp"
#include "dgx/llm/workload/training_measure.hpp"
#include "dgx/llm/workload/training_notes.hpp"
#include "params.hpp"

namespace dgx::plugins::llm_pretrain {

namespace {

namespace text = dgx::sdk::text;
namespace workload = llm::workload;
using dgx::sdk::NotePlacement;

/// One sweep of the explorer under one framework release.
struct ReleaseRun {
  workload::Assumptions assumptions;
  llm::ExploreResult result;
  double seconds = 0;
};

ReleaseRun explore_release(const dgx::sdk::Host& host, const Pretraining& job, workload::Assumptions assumptions) {
  const PretrainSettings& s = job.settings();
  llm::StepModel model(assumptions.model, assumptions.system);
  const llm::ExploreOptions options{.price = assumptions.price,
                                    .budget_slack = s.budget_slack,
                                    .deadline_days = s.deadline_days,
                                    .cancelled = [&host] { return host.cancelled(); }};
  const double start = host.now();
  auto result = llm::explore(model, job.explore_space(), options);
  const double elapsed = host.now() - start;
  host.throw_if_cancelled();  // Ctrl-C ends the sweep early: no rows from half a space
  if (!result) {
    throw dgx::sdk::InvalidArgument(result.error().message +
                                    " (other GPU counts, a shorter sequence or a system with more HBM may fit)");
  }
  return ReleaseRun{.assumptions = std::move(assumptions), .result = std::move(result).value(), .seconds = elapsed};
}

/// The rows of one release's sweep, `release` the job under that release's assumptions.
void emit_rows(const dgx::sdk::Host& host, const Pretraining& release, const llm::ExploreResult& r,
               bool framework_column) {
  const workload::Assumptions& a = release.assumptions();
  for (std::size_t i = 0; i < r.points.size(); ++i) {
    const llm::ExplorePoint& p = r.points[i];
    dgx::sdk::Row row =
        release.projected_row("explore", p.train, workload::headline_of(p, a), p.breakdown, framework_column);
    workload::add_explore_fields(row, r, i, a.model.moe());
    host.emit(row);
  }
}

}  // namespace

Pretraining::Pretraining(const dgx::sdk::Host& host) : Pretraining(read_settings(host), {}) {
  assumptions_ = workload::resolve_assumptions(settings_);
}

Pretraining::Pretraining(PretrainSettings settings, workload::Assumptions assumptions)
    : settings_(std::move(settings)), assumptions_(std::move(assumptions)) {}

void Pretraining::use_system(const std::string& system) {
  settings_.system = system;
  assumptions_ = workload::resolve_assumptions(settings_);
}

llm::ExploreSpace Pretraining::explore_space() const {
  llm::ExploreSpace space = workload::explore_space(settings_);
  space.tokens = settings_.train.tokens;
  return space;
}

void Pretraining::explore(const dgx::sdk::Host& host) const {
  std::vector<ReleaseRun> runs;
  for (const std::string& name : workload::framework_names_of(settings_)) {
    runs.push_back(explore_release(host, *this,
                                   name == assumptions_.framework.name ? assumptions_
                                                                       : workload::with_framework(assumptions_, name)));
  }
  const bool compare = runs.size() > 1;
  // The newest release compared leads: its front and recommendation are the answer, the others its history.
  const auto newest = std::max_element(runs.begin(), runs.end(), [](const ReleaseRun& x, const ReleaseRun& y) {
    return x.assumptions.framework.released < y.assumptions.framework.released;
  });
  const Pretraining lead(settings_, newest->assumptions);
  host.note(NotePlacement::before, "Assumptions", lead.assumptions_note());
  host.note(NotePlacement::before, "Sweep", lead.sweep_note());
  if (const std::string scope = lead.scope_note(); !scope.empty()) {
    host.note(NotePlacement::before, "Outside calibration", scope);
  }
  std::uint64_t evaluated = 0;
  double seconds = 0;
  for (const ReleaseRun& run : runs) {
    emit_rows(host, Pretraining(settings_, run.assumptions), run.result, compare);
    evaluated += run.result.evaluated;
    seconds += run.seconds;
  }
  host.note(NotePlacement::after, "Pareto front (days vs cost)", lead.pareto_note(newest->result));
  host.note(NotePlacement::after, "Recommendation", lead.recommendation_note(newest->result));
  if (const auto pick = workload::recommended_point(newest->result)) {
    host.note(NotePlacement::after, "How sure", lead.confidence_note(newest->result, *pick));
    host.note(NotePlacement::after, "Published recipe", lead.recipe_note(newest->result, *pick));
  }
  if (compare) {
    std::vector<ReleaseOutcome> outcomes;
    for (const ReleaseRun& run : runs) {
      outcomes.push_back(ReleaseOutcome{.assumptions = &run.assumptions, .result = &run.result});
    }
    const bool one_family = std::all_of(runs.begin(), runs.end(), [&](const ReleaseRun& run) {
      return run.assumptions.framework.family == newest->assumptions.framework.family;
    });
    host.note(NotePlacement::after, one_family ? "Framework upgrade" : "Framework comparison", upgrade_note(outcomes));
  }
  if (const std::string dropped = workload::dropped_note(newest->result, lead.assumptions()); !dropped.empty()) {
    host.note(NotePlacement::after, "Dropped", dropped);
  }
  host.note(NotePlacement::after, "Projection",
            lead.projection_note() + " " + workload::sweep_summary(evaluated, seconds));
}

dgx::sdk::PluginSpec make_plugin_spec() {
  return workload::plugin_spec<Pretraining>({
      .name = kWorkloadName,
      .description = "LLM pretraining: step time, tokens/s, MFU, days and cost of a training run, projected from a "
                     "calibrated performance model, and an explorer of GPU count, precision and parallel layout",
      .kind = dgx::sdk::Kind::pretrain,
      .summary = "Projects an LLM pretraining run (time, throughput, MFU, cost) and explores GPU count, precision "
                 "and parallel layout",
      .precisions = workload::training_precisions(),
      .params = pretrain_params(),
      .can_measure = workload::can_measure_layer,
  });
}

}  // namespace dgx::plugins::llm_pretrain
