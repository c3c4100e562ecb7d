#include "plugin.hpp"

#include <algorithm>
#include <utility>

#include <dgx/sdk/error.hpp>
#include <dgx/sdk/text.hpp>

#include "dgx/llm/workload/plugin_spec.hpp"
#include "dgx/llm/workload/training_measure.hpp"
#include "dgx/llm/workload/training_notes.hpp"
#include "dgx/log_import/formats.hpp"
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
  workload::SweepTime took;
};

ReleaseRun explore_release(const dgx::sdk::Host& host, const Pretraining& job, workload::Assumptions assumptions) {
  const PretrainSettings& s = job.settings();
  llm::StepModel model(assumptions.model, assumptions.system);
  const llm::ExploreOptions options{.price = assumptions.price,
                                    .budget_slack = s.budget_slack,
                                    .deadline_days = s.deadline_days,
                                    .budget_usd = assumptions.price ? s.budget_usd : std::nullopt,
                                    .cancelled = [&host] { return host.cancelled(); }};
  const workload::SweepClock clock(host);
  auto result = llm::explore(model, job.explore_space(), options);
  const workload::SweepTime took = clock.elapsed();
  host.throw_if_cancelled();  // Ctrl-C ends the sweep early: no rows from half a space
  if (!result) {
    throw dgx::sdk::InvalidArgument(result.error().message +
                                    " (other GPU counts, a shorter sequence or a system with more HBM may fit)");
  }
  return ReleaseRun{.assumptions = std::move(assumptions), .result = std::move(result).value(), .took = took};
}

/// A release's sweep priced at `price` (a provider's): costs, the front and the picks of that price alone. Step
/// times do not depend on the price, so one sweep per release serves every provider.
llm::ExploreResult repriced(const llm::ExploreResult& r, const std::optional<llm::Price>& price,
                            const PretrainSettings& s) {
  llm::ExploreResult out = r;
  out.cost_unit = price ? "USD" : "GPU-hours";
  for (llm::ExplorePoint& p : out.points) {
    p.cost = price ? p.gpu_hours * price->usd_per_gpu_hour : p.gpu_hours;
  }
  workload::recommend(out, s.budget_slack, s.deadline_days, price ? s.budget_usd : std::nullopt);
  return out;
}

/// The rows of one series (a release priced by a provider), `release` the job under its assumptions. Only the lead's
/// series carry the front and the recommendation (`lead` its merged result, `offset` the series' first point in
/// it): one front and one recommendation per explore, however many series the table compares.
void emit_rows(const dgx::sdk::Host& host, const Pretraining& release, const SeriesRun& run, const LeadResult* lead,
               std::size_t offset, workload::Compared compared) {
  const workload::Assumptions& a = release.assumptions();
  const llm::ExploreResult& r = run.result;
  for (std::size_t i = 0; i < r.points.size(); ++i) {
    const llm::ExplorePoint& p = r.points[i];
    dgx::sdk::Row row = release.projected_row("explore", p.train, workload::headline_of(p, a), p.breakdown, compared);
    const bool on_front = lead != nullptr && lead->result.points[offset + i].pareto;
    const std::string mark = lead != nullptr ? workload::recommended_mark(lead->result, offset + i) : std::string();
    workload::add_explore_fields(row, p, a.model.moe(), on_front, mark,
                                 workload::series_label(p.train.precision, a, compared));
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

std::vector<SeriesRun> Pretraining::explore_series(const dgx::sdk::Host& host, workload::SweepTime& took,
                                                   std::uint64_t& evaluated) const {
  const std::vector<std::string> frameworks = workload::framework_names_of(settings_);
  std::vector<SeriesRun> series;
  for (std::size_t f = 0; f < frameworks.size(); ++f) {
    workload::Assumptions release = frameworks[f] == assumptions_.framework.name
                                        ? assumptions_
                                        : workload::with_framework(assumptions_, frameworks[f]);
    if (frameworks.size() > 1) {
      release.frameworks_used = frameworks;  // one source line naming every release
    }
    const ReleaseRun run = explore_release(host, *this, release);
    took += run.took;
    evaluated += run.result.evaluated;
    for (workload::Assumptions& priced : workload::priced_by_providers(run.assumptions, settings_)) {
      llm::ExploreResult result = repriced(run.result, priced.price, settings_);
      series.push_back(SeriesRun{.assumptions = std::move(priced), .result = std::move(result), .release = f});
    }
  }
  return series;
}

LeadResult lead_of(const std::vector<SeriesRun>& series, std::size_t release, const PretrainSettings& settings) {
  LeadResult lead;
  for (std::size_t k = 0; k < series.size(); ++k) {
    if (series[k].release != release) {
      continue;
    }
    for (const llm::ExplorePoint& p : series[k].result.points) {
      lead.result.points.push_back(p);
      lead.series.push_back(k);
    }
    lead.result.cost_unit = series[k].result.cost_unit;
    lead.result.evaluated = series[k].result.evaluated;
    lead.result.feasible = series[k].result.feasible;
    lead.result.notes = series[k].result.notes;
    lead.result.infeasible = series[k].result.infeasible;
  }
  const bool priced = series.front().assumptions.price.has_value();
  workload::recommend(lead.result, settings.budget_slack, settings.deadline_days,
                      priced ? settings.budget_usd : std::nullopt);
  return lead;
}

void Pretraining::explore(const dgx::sdk::Host& host) const {
  workload::SweepTime took;
  std::uint64_t evaluated = 0;
  const std::vector<SeriesRun> series = explore_series(host, took, evaluated);
  const std::size_t releases = series.back().release + 1;
  const workload::Compared compared{.framework = releases > 1, .provider = settings_.providers.size() > 1};
  // The newest release compared leads: its front and recommendation are the answer, the others its history; with
  // several providers the lead's front and recommendation are over all of them (the cheapest price wins).
  const auto newest = std::max_element(series.begin(), series.end(), [](const SeriesRun& x, const SeriesRun& y) {
    return x.assumptions.framework.released < y.assumptions.framework.released;
  });
  const LeadResult lead = lead_of(series, newest->release, settings_);
  const Pretraining notes(settings_, newest->assumptions);
  host.note(NotePlacement::before, "Assumptions", notes.assumptions_note());
  host.note(NotePlacement::before, "Sweep", notes.sweep_note());
  if (const std::string scope = notes.scope_note(); !scope.empty()) {
    host.note(NotePlacement::before, "Outside calibration", scope);
  }
  std::size_t offset = 0;
  for (const SeriesRun& run : series) {
    const bool leads = run.release == newest->release;
    emit_rows(host, Pretraining(settings_, run.assumptions), run, leads ? &lead : nullptr, offset, compared);
    offset += leads ? run.result.points.size() : 0;
  }
  const auto describe = [&](std::size_t i) {
    return describe_point(lead.result.points[i], series[lead.series[i]].assumptions, compared.provider);
  };
  const auto pick = workload::recommended_point(lead.result);
  // The pick's own series (its provider's price alone): what the notes about one configuration hold it against.
  const SeriesRun& chosen = pick ? series[lead.series[*pick]] : *newest;
  const Pretraining picked(settings_, chosen.assumptions);
  if (const std::string summary = picked.summary_note(host, chosen.result); !summary.empty()) {
    host.note(NotePlacement::after, "Summary", summary);
  }
  host.note(NotePlacement::after, "Pareto front (days vs cost)", notes.pareto_note(lead.result, describe));
  host.note(NotePlacement::after, "Recommendation", notes.recommendation_note(lead.result, describe));
  if (pick) {
    const std::size_t local = static_cast<std::size_t>(
        std::find(lead.series.begin(), lead.series.end(), lead.series[*pick]) - lead.series.begin());
    host.note(NotePlacement::after, "How sure", picked.confidence_note(chosen.result, *pick - local));
    host.note(NotePlacement::after, "Published recipe", picked.recipe_note(chosen.result, *pick - local));
  }
  if (const std::string layouts = notes.layout_note(lead.result); !layouts.empty()) {
    host.note(NotePlacement::after, "Layout labels", layouts);
  }
  if (compared.provider) {
    host.note(NotePlacement::after, "Provider comparison", provider_note(series, lead, newest->release));
  }
  if (compared.framework) {
    std::vector<ReleaseOutcome> outcomes;
    bool one_family = true;
    for (const SeriesRun& run : series) {  // each release under the price of the pick's provider
      if (run.assumptions.provider == chosen.assumptions.provider) {
        outcomes.push_back(ReleaseOutcome{.assumptions = &run.assumptions, .result = &run.result});
        one_family = one_family && run.assumptions.framework.family == newest->assumptions.framework.family;
      }
    }
    host.note(NotePlacement::after, one_family ? "Framework upgrade" : "Framework comparison", upgrade_note(outcomes));
  }
  if (const std::string dropped = workload::dropped_note(newest->result, notes.assumptions()); !dropped.empty()) {
    host.note(NotePlacement::after, "Dropped", dropped);
  }
  host.note(NotePlacement::after, "Projection",
            notes.projection_note() + " " + workload::sweep_summary(evaluated, took));
}

dgx::sdk::PluginSpec make_plugin_spec() {
  dgx::sdk::PluginSpec spec = workload::plugin_spec<Pretraining>({
      .name = kWorkloadName,
      .description = "LLM pretraining: step time, tokens/s, MFU, days and cost of a training run, projected from a "
                     "calibrated performance model, and an explorer of GPU count, precision and parallel layout",
      .kind = dgx::sdk::Kind::pretrain,
      .summary = "Projects an LLM pretraining run (time, throughput, MFU, cost) and explores GPU count, precision "
                 "and parallel layout",
      .precisions = workload::training_precisions(),
      .params = pretrain_params(),
      .can_measure = workload::can_measure_layer,
      .rows = workload::training_declarations(workload::RunTime::days_to_train),
  });
  // The training logs people already have (NeMo, Megatron-LM, torchtitan, MLPerf): dgxhost import and verdict.
  spec.formats = dgx::logs::training_formats();
  return spec;
}

}  // namespace dgx::plugins::llm_pretrain
