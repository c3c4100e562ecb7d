// How sure a projection is: the expected error band of a projected configuration, from the calibration residuals of
// the published runs that resemble it (system, precision, framework, model family and size, scale, pretraining or
// fine-tuning), widened and flagged outside the calibrated domain; whether an advantage is a tie inside it; and how
// often the published values fall inside their own (leave-one-out) bands.
//
// The band. Each calibration outcome i (error e_i = (projected − published) / published) weighs w_i = the product of
// its similarities to the query (kSimilarity in accuracy_band.cpp: the same system 1, the same architecture 0.25,
// another 0.05; the same framework 1, its family 0.4, another 0.1; the same precision 1, the same peak column 0.5,
// another 0.25; the same model 1, else exp(−|ln size ratio| / ln 4), × 0.03 between dense and MoE (their errors come
// from different mechanisms); the same kind of run 1, pretraining vs fine-tuning 0.3; scale exp(−|ln GPU ratio| / ln
// 16)). The weighted RMS of the e_i, shrunk toward the robust spread of all rows (1.4826 × median |e|) by its effective
// number of rows n = (Σw)² / Σw² (two rows' worth of prior), times z = 1.645 (90 % of a normal error) is the band, at
// least kMinimumBand. Outside the calibrated domain (the system, its framework family or, for MoE models, MoE runs
// without rows; fewer than 3 effective rows; a GPU count more than 10× beyond the largest calibrated run of that
// system) the band widens and says why.
#pragma once

#include "dgx/llm/calibration.hpp"
#include "dgx/llm/catalog.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace dgx::llm {

/// What the band of a configuration depends on.
struct BandQuery {
  std::string model;      ///< catalog name
  double parameters = 0;  ///< total parameters
  bool moe = false;
  /// Layer kinds no calibration run has (calibration_scope.hpp uncalibrated_layer_kinds); empty: none.
  std::string uncalibrated_layers;
  std::string system;        ///< catalog name
  std::string architecture;  ///< SystemProfile::architecture
  std::string framework;     ///< profile name
  std::string family;        ///< the framework's family
  Precision precision = Precision::bf16;
  int gpus = 0;
  bool finetune = false;
};

/// The query of a configuration: `system` as the framework release runs it (SystemProfile::software names it).
[[nodiscard]] BandQuery band_query(const ModelConfig& model, const SystemProfile& system, Precision precision, int gpus,
                                   bool finetune = false);

struct AccuracyBand {
  double width = 0;           ///< ±: the published value should lie within projection × (1 ± width) 9 times in 10
  double rms = 0;             ///< weighted RMS of the applicable residuals (before shrinkage and widening)
  double bias = 0;            ///< weighted mean signed residual: > 0, the projections of such runs run fast
  double effective_rows = 0;  ///< (Σw)² / Σw²
  bool outside = false;       ///< outside the calibrated domain: `reasons` says why
  std::vector<std::string> reasons;

  /// "±4.2%", or "±9.0% (outside calibration)".
  [[nodiscard]] std::string label() const;
};

/// The smallest band stated: run-to-run variation of the published runs themselves is of this order.
inline constexpr double kMinimumBand = 0.015;
/// A GPU count more than this many times the largest calibrated run on the system lies outside the calibration.
inline constexpr double kFarScaleRatio = 10;

class AccuracyModel {
public:
  /// From calibration outcomes (run_calibration of load_calibration() and load_finetune_calibration() rows);
  /// failed rows are left out.
  explicit AccuracyModel(std::vector<CalibrationOutcome> outcomes);

  /// Both embedded sets, projected once per process.
  [[nodiscard]] static const AccuracyModel& embedded();

  [[nodiscard]] AccuracyBand band(const BandQuery& query) const;
  /// The band with outcome `excluded` left out: a row's own band in the coverage check never rests on the row.
  [[nodiscard]] AccuracyBand band_without(const BandQuery& query, std::size_t excluded) const;

  struct Coverage {
    int rows = 0;    ///< outcomes checked
    int inside = 0;  ///< whose published value lies inside their own leave-one-out band
    [[nodiscard]] double share() const { return rows > 0 ? static_cast<double>(inside) / rows : 0; }
  };
  /// How often the published value falls inside its own band, each computed without that row (target 80-95 %).
  [[nodiscard]] Coverage coverage() const;

  [[nodiscard]] const std::vector<CalibrationOutcome>& outcomes() const { return outcomes_; }
  /// The query of outcome i.
  [[nodiscard]] const BandQuery& query(std::size_t i) const { return queries_[i]; }

private:
  [[nodiscard]] AccuracyBand compute(const BandQuery& query, std::optional<std::size_t> excluded) const;

  std::vector<CalibrationOutcome> outcomes_;
  std::vector<BandQuery> queries_;
  double prior_rms_ = 0;
};

/// Is an advantage (relative: 0.059 = 5.9 % faster) within the band of the configuration it favours? Then the two
/// are a tie: the model cannot tell them apart.
[[nodiscard]] bool is_tie(double advantage, const AccuracyBand& band);

}  // namespace dgx::llm
