// The published recipe beside the explorer's pick: the layout a calibration row of configs/baselines ran for the same
// model on the same system at the nearest scale, projected the way the pick is, and whether the pick beats it by more
// than the band ("TP2 PP4 CP4 VP4: +5.9% over the published TP4 PP4 CP2 VP5 (NeMo 26.02.01, 64 GPUs), inside the
// ±6.6% band: a tie; the recipe is the safer choice").
#pragma once

#include "dgx/llm/accuracy_band.hpp"
#include "dgx/llm/calibration.hpp"
#include "dgx/llm/explorer.hpp"
#include "dgx/llm/step_model.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dgx::llm {

/// "TP4 PP4 CP2 VP5" (EP, ETP and MBS where they are not 1).
[[nodiscard]] std::string layout_label(const TrainConfig& train);

/// The published run for `model` on `system` nearest to `gpus` (by |ln GPU ratio|), preferring the same precision
/// and, among equals, the newest framework release; nullopt when configs/baselines holds none for that pair.
/// `rows`: the calibration rows to look in (default: load_calibration()).
[[nodiscard]] std::optional<CalibrationRow> find_recipe(std::string_view model, std::string_view system, int gpus,
                                                        std::optional<Precision> precision = std::nullopt);
[[nodiscard]] std::optional<CalibrationRow> find_recipe(const std::vector<CalibrationRow>& rows, std::string_view model,
                                                        std::string_view system, int gpus,
                                                        std::optional<Precision> precision = std::nullopt);

struct RecipeComparison {
  CalibrationRow recipe;
  TrainConfig recipe_train;  ///< the recipe as projected: its layout at the pick's GPU count and global batch
  double recipe_step_s = 0;  ///< its projected step time
  double pick_step_s = 0;
  double advantage = 0;  ///< recipe step / pick step − 1 as projected (per token): > 0, the pick is faster
  /// The model's own error on the recipe's published run (its calibration outcome: projected throughput vs
  /// published), when known; nullopt otherwise.
  std::optional<double> recipe_residual;
  /// The advantage over the recipe as published: the recipe's projection corrected by its residual (the published
  /// run went 1 / (1 + residual) times the projected speed); = advantage without a residual.
  double corrected_advantage = 0;
  AccuracyBand band;  ///< the pick's
  bool tie = false;   ///< the corrected advantage lies inside the band
  std::string line;   ///< the sentence for the explore output
};

/// The recipe projected with `model` at the pick's GPU count and global batch (its own batch where the layout
/// cannot take the pick's), compared with the pick; where the model's error on the recipe's published run is known
/// (`recipe_residual`, e.g. from AccuracyModel::embedded()'s outcomes: recipe_residual_of), the comparison is with
/// the recipe as it ran. An error when the recipe's layout is not valid at that GPU count or does not fit.
[[nodiscard]] Expected<RecipeComparison> compare_with_recipe(StepModel& model, const ExplorePoint& pick,
                                                             const CalibrationRow& recipe, const AccuracyBand& band,
                                                             std::optional<double> recipe_residual = std::nullopt);

/// The calibration error (projected vs published throughput) of the published run `recipe` among `outcomes`.
[[nodiscard]] std::optional<double> recipe_residual_of(const CalibrationRow& recipe,
                                                       const std::vector<CalibrationOutcome>& outcomes);

/// The points of `result` whose days to train lie within the band of point `pick` (the pick excluded): the
/// alternatives a recommendation ties with.
[[nodiscard]] std::vector<std::size_t> tied_points(const ExploreResult& result, std::size_t pick,
                                                   const AccuracyBand& band);

}  // namespace dgx::llm
