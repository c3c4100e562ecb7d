#include "explore_mode.hpp"

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
  llm::ExploreSpace space = llm::plugin::explore_space(s);
  space.tokens = s.train.tokens;
  return space;
}

void run_explore(const dgx::sdk::Host& host, const PretrainSettings& settings, const Assumptions& assumptions) {
  llm::StepModel model(assumptions.model, assumptions.system);
  const llm::ExploreOptions options{
      .price = assumptions.price, .budget_slack = settings.budget_slack, .deadline_days = settings.deadline_days};
  const double start = host.now();
  const auto result = llm::explore(model, explore_space(settings), options);
  const double elapsed = host.now() - start;
  if (!result) {
    throw dgx::sdk::InvalidArgument(result.error().message +
                                    " (other GPU counts, a shorter sequence or a system with more HBM may fit)");
  }
  const llm::ExploreResult& r = *result;

  host.note(NotePlacement::before, "Assumptions", assumptions_note(settings, assumptions));
  host.note(NotePlacement::before, "Sweep", sweep_note(settings, assumptions));
  for (std::size_t i = 0; i < r.points.size(); ++i) {
    const llm::ExplorePoint& p = r.points[i];
    dgx::sdk::Row row = projected_row("explore", assumptions, p.train, headline_of(p, assumptions), p.breakdown);
    row.field("layout", layout_label(p.train, assumptions.model.moe()))
        .field("pareto", p.pareto ? "*" : "")
        .field("recommended", recommended_mark(r, i));
    host.emit(row);
  }
  host.note(NotePlacement::after, "Pareto front (days vs cost)", pareto_note(r, assumptions));
  host.note(NotePlacement::after, "Recommendation", recommendation_note(r, settings, assumptions));
  if (const std::string dropped = dropped_note(r, assumptions); !dropped.empty()) {
    host.note(NotePlacement::after, "Dropped", dropped);
  }
  host.note(NotePlacement::after, "Projection",
            projection_note(assumptions) + " This sweep evaluated " + grouped(static_cast<long long>(r.evaluated)) +
                " layouts in " + duration(elapsed) + ".");
}

}  // namespace dgx::plugins::llm_pretrain
