#include "dgx/llm/recipe_lookup.hpp"

#include "dgx/llm/catalog.hpp"

#include <cmath>
#include <cstdio>
#include <tuple>

namespace dgx::llm {

namespace {

std::string signed_percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%+.1f%%", 100 * fraction);
  return text;
}

/// Who published the recipe: the framework release's display name, else its profile name.
std::string publisher(const CalibrationRow& row) {
  const auto framework = find_framework(row.framework);
  return framework ? framework->display : row.framework;
}

}  // namespace

std::string layout_label(const TrainConfig& train) {
  const Layout& l = train.layout;
  std::string out = "TP" + std::to_string(l.tp) + " PP" + std::to_string(l.pp) + " CP" + std::to_string(l.cp) + " VP" +
                    std::to_string(l.vp);
  if (l.ep > 1) {
    out += " EP" + std::to_string(l.ep);
  }
  if (l.ep > 1 && l.etp > 0 && l.etp != l.tp) {
    out += " ETP" + std::to_string(l.etp);
  }
  if (train.mbs != 1) {
    out += " MBS" + std::to_string(train.mbs);
  }
  return out;
}

std::optional<CalibrationRow> find_recipe(const std::vector<CalibrationRow>& rows, std::string_view model,
                                          std::string_view system, int gpus, std::optional<Precision> precision) {
  const CalibrationRow* best = nullptr;
  // (precision differs, scale distance, release date): the first two smaller, the date larger is better
  std::tuple<bool, double, std::string> best_key;
  for (const CalibrationRow& row : rows) {
    if (row.model != model || row.system != system || row.finetune) {
      continue;
    }
    const auto framework = find_framework(row.framework);
    std::tuple<bool, double, std::string> key{precision && row.train.precision != *precision,
                                              std::abs(std::log(static_cast<double>(std::max(1, gpus)) / row.gpus)),
                                              framework ? framework->released : std::string()};
    const bool better =
        best == nullptr || std::get<0>(key) < std::get<0>(best_key) ||
        (std::get<0>(key) == std::get<0>(best_key) &&
         (std::get<1>(key) < std::get<1>(best_key) - 1e-12 ||
          (std::abs(std::get<1>(key) - std::get<1>(best_key)) <= 1e-12 && std::get<2>(key) > std::get<2>(best_key))));
    if (better) {
      best = &row;
      best_key = key;
    }
  }
  return best ? std::optional<CalibrationRow>(*best) : std::nullopt;
}

std::optional<CalibrationRow> find_recipe(std::string_view model, std::string_view system, int gpus,
                                          std::optional<Precision> precision) {
  const auto rows = load_calibration();
  return rows ? find_recipe(*rows, model, system, gpus, precision) : std::nullopt;
}

std::optional<double> recipe_residual_of(const CalibrationRow& recipe,
                                         const std::vector<CalibrationOutcome>& outcomes) {
  for (const CalibrationOutcome& o : outcomes) {
    if (o.failure.empty() && o.row.label == recipe.label && o.row.section == recipe.section) {
      // A step-time row's error is in step time: as throughput it is 1 / (1 + e) − 1.
      return o.row.metric == CalibrationMetric::step_time_s ? 1 / (1 + o.error) - 1 : o.error;
    }
  }
  return std::nullopt;
}

Expected<RecipeComparison> compare_with_recipe(StepModel& model, const ExplorePoint& pick, const CalibrationRow& recipe,
                                               const AccuracyBand& band, std::optional<double> recipe_residual) {
  RecipeComparison c;
  c.recipe = recipe;
  c.band = band;
  c.pick_step_s = pick.step_time_s;
  TrainConfig train = recipe.train;
  train.precision = pick.train.precision;
  train.seq_len = pick.train.seq_len;
  train.tokens = pick.train.tokens;
  train.gbs = pick.train.gbs;
  auto projected = model.project(pick.gpus, train);
  if (!projected) {
    train.gbs = recipe.train.gbs;  // the recipe's own batch
    projected = model.project(pick.gpus, train);
  }
  if (!projected) {
    return Error{"the published recipe " + layout_label(recipe.train) + " (" + recipe.label +
                 ") cannot run at this point: " + projected.error().message};
  }
  c.recipe_train = projected->train;
  // Per token: the recipe may have kept its own global batch.
  const double pick_per_token = pick.step_time_s / (static_cast<double>(pick.train.gbs));
  const double recipe_per_token = projected->step_time_s / static_cast<double>(train.gbs);
  c.recipe_step_s = projected->step_time_s;
  c.advantage = recipe_per_token / pick_per_token - 1;
  c.recipe_residual = recipe_residual;
  // The published recipe ran at 1 / (1 + residual) of its projected speed: its time per token is that much shorter.
  c.corrected_advantage =
      recipe_residual ? (recipe_per_token * (1 + *recipe_residual)) / pick_per_token - 1 : c.advantage;
  c.tie = is_tie(c.corrected_advantage, band);
  const std::string pick_label = layout_label(pick.train);
  const std::string published = "the published " + layout_label(recipe.train) + " (" + publisher(recipe) + ", " +
                                std::to_string(recipe.gpus) + " GPUs)";
  if (pick_label == layout_label(c.recipe_train) && c.advantage == 0) {
    c.line = pick_label + ": the published recipe itself (" + publisher(recipe) + ")";
    return c;
  }
  const std::string corrected = recipe_residual ? " (" + signed_percent(c.advantage) +
                                                      " as projected; the model projects the recipe's run " +
                                                      signed_percent(*recipe_residual) + " from its published speed)"
                                                : "";
  c.line = pick_label + ": " + signed_percent(c.corrected_advantage) + " over " + published + corrected + ", " +
           (c.tie ? "inside the " + band.label() + " band: a tie; the recipe is the safer choice"
                  : "beyond the " + band.label() + " band: the pick is expected to be " +
                        (c.corrected_advantage > 0 ? "faster" : "slower"));
  return c;
}

std::vector<std::size_t> tied_points(const ExploreResult& result, std::size_t pick, const AccuracyBand& band) {
  std::vector<std::size_t> tied;
  if (pick >= result.points.size()) {
    return tied;
  }
  const double days = result.points[pick].days;
  for (std::size_t i = 0; i < result.points.size(); ++i) {
    if (i != pick && days > 0 && is_tie(result.points[i].days / days - 1, band)) {
      tied.push_back(i);
    }
  }
  return tied;
}

}  // namespace dgx::llm
