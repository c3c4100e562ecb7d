#include "dgx/llm/accuracy_band.hpp"

#include "dgx/llm/calibration_scope.hpp"

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/flops.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace dgx::llm {

namespace {

/// The similarities the weights multiply (accuracy_band.hpp explains them).
struct Similarity {
  double same_architecture = 0.25, other_system = 0.05;
  double same_family = 0.4, other_framework = 0.1;
  double same_peak_column = 0.5, other_precision = 0.25;
  double size_scale = std::log(4.0);  ///< a model size ratio of 4 weighs 1/e
  double dense_vs_moe = 0.03;
  double other_kind = 0.3;            ///< pretraining vs fine-tuning
  double gpu_scale = std::log(16.0);  ///< a GPU-count ratio of 16 weighs 1/e
};
const Similarity kSimilarity{};  // not constexpr: std::log is not constexpr before C++26

/// 90 % of a normal error lies within ±1.645 σ.
constexpr double kZ90 = 1.645;
/// Rows' worth of the prior (the robust spread of every row's error) the band is shrunk toward.
constexpr double kPriorRows = 2;
/// σ of a normal distribution over its median absolute value.
constexpr double kMedianToSigma = 1.4826;
/// Fewer effective rows than this: the band rests on too little.
constexpr double kFewRows = 3;
/// How much each reason to be outside widens the band.
constexpr double kUncalibratedSystemWidening = 1.5;
constexpr double kUncalibratedFamilyWidening = 1.5;
constexpr double kFewRowsWidening = 1.3;
constexpr double kFarScaleWidening = 2.0;
/// A framework family with fewer rows than this is treated as uncalibrated.
constexpr int kFamilyRows = 5;

std::string family_of_architecture(const std::string& architecture) {
  return architecture.substr(0, architecture.find('-'));
}

double weight(const BandQuery& q, const BandQuery& r) {
  double w = 1;
  if (q.system != r.system) {
    w *= family_of_architecture(q.architecture) == family_of_architecture(r.architecture)
             ? kSimilarity.same_architecture
             : kSimilarity.other_system;
  }
  if (q.framework != r.framework) {
    w *= q.family == r.family ? kSimilarity.same_family : kSimilarity.other_framework;
  }
  if (q.precision != r.precision) {
    w *= peak_column(q.precision) == peak_column(r.precision) ? kSimilarity.same_peak_column
                                                              : kSimilarity.other_precision;
  }
  if (q.model != r.model) {
    const double ratio = q.parameters > 0 && r.parameters > 0 ? std::abs(std::log(q.parameters / r.parameters)) : 2;
    w *= std::exp(-ratio / kSimilarity.size_scale) * (q.moe == r.moe ? 1.0 : kSimilarity.dense_vs_moe);
  }
  if (q.finetune != r.finetune) {
    w *= kSimilarity.other_kind;
  }
  if (q.gpus > 0 && r.gpus > 0) {
    w *= std::exp(-std::abs(std::log(static_cast<double>(q.gpus) / r.gpus)) / kSimilarity.gpu_scale);
  }
  return w;
}

std::string percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", 100 * fraction);
  return text;
}

BandQuery query_of(const CalibrationRow& row) {
  BandQuery q;
  q.model = row.model;
  q.system = row.system;
  q.framework = row.framework;
  q.precision = row.train.precision;
  q.gpus = row.gpus;
  q.finetune = row.finetune.has_value();
  if (const auto model = find_model(row.model)) {
    q.parameters = count_parameters(*model).total;
    q.moe = model->moe();
  }
  if (const auto system = find_system(row.system)) {
    q.architecture = system->architecture;
  }
  if (const auto framework = find_framework(row.framework)) {
    q.family = framework->family;
  }
  return q;
}

}  // namespace

BandQuery band_query(const ModelConfig& model, const SystemProfile& system, Precision precision, int gpus,
                     bool finetune) {
  return BandQuery{.model = model.name,
                   .parameters = count_parameters(model).total,
                   .moe = model.moe(),
                   .uncalibrated_layers = uncalibrated_layer_kinds(model),
                   .system = system.name,
                   .architecture = system.architecture,
                   .framework = system.software.framework,
                   .family = system.software.family,
                   .precision = precision,
                   .gpus = gpus,
                   .finetune = finetune};
}

std::string AccuracyBand::label() const { return "±" + percent(width) + (outside ? " (outside calibration)" : ""); }

AccuracyModel::AccuracyModel(std::vector<CalibrationOutcome> outcomes) {
  for (CalibrationOutcome& o : outcomes) {
    if (o.failure.empty()) {
      queries_.push_back(query_of(o.row));
      outcomes_.push_back(std::move(o));
    }
  }
  // The prior: a robust scale of every row's error (1.4826 × the median |error|, σ for normal errors), so that a
  // few far rows (the MoE ones) do not widen the band of every well-calibrated configuration.
  std::vector<double> errors;
  for (const CalibrationOutcome& o : outcomes_) {
    errors.push_back(std::abs(o.error));
  }
  if (errors.empty()) {
    prior_rms_ = 0.1;
  } else {
    std::nth_element(errors.begin(), errors.begin() + static_cast<std::ptrdiff_t>(errors.size() / 2), errors.end());
    prior_rms_ = kMedianToSigma * errors[errors.size() / 2];
  }
}

const AccuracyModel& AccuracyModel::embedded() {
  static const AccuracyModel model = [] {
    std::vector<CalibrationOutcome> all;
    for (const auto& rows : {load_calibration(), load_finetune_calibration()}) {
      if (rows) {
        for (CalibrationOutcome& o : run_calibration(*rows)) {
          all.push_back(std::move(o));
        }
      }
    }
    return AccuracyModel(std::move(all));
  }();
  return model;
}

AccuracyBand AccuracyModel::band(const BandQuery& query) const { return compute(query, std::nullopt); }

AccuracyBand AccuracyModel::band_without(const BandQuery& query, std::size_t excluded) const {
  return compute(query, excluded);
}

AccuracyBand AccuracyModel::compute(const BandQuery& q, std::optional<std::size_t> excluded) const {
  double sum_w = 0, sum_w2 = 0, sum_we = 0, sum_we2 = 0;
  int system_rows = 0, family_rows = 0, moe_rows = 0, largest = 0;
  for (std::size_t i = 0; i < outcomes_.size(); ++i) {
    if (excluded && *excluded == i) {
      continue;
    }
    const BandQuery& r = queries_[i];
    const double e = outcomes_[i].error;
    const double w = weight(q, r);
    sum_w += w;
    sum_w2 += w * w;
    sum_we += w * e;
    sum_we2 += w * e * e;
    system_rows += r.system == q.system ? 1 : 0;
    family_rows += r.family == q.family ? 1 : 0;
    moe_rows += r.moe ? 1 : 0;
    if (r.system == q.system) {
      largest = std::max(largest, r.gpus);
    }
  }
  AccuracyBand b;
  if (sum_w <= 0) {
    b.width = kZ90 * prior_rms_;
    b.outside = true;
    b.reasons.emplace_back("no calibration row applies");
    return b;
  }
  b.rms = std::sqrt(sum_we2 / sum_w);
  b.bias = sum_we / sum_w;
  b.effective_rows = sum_w * sum_w / sum_w2;
  const double n = b.effective_rows;
  const double shrunk = std::sqrt((n * b.rms * b.rms + kPriorRows * prior_rms_ * prior_rms_) / (n + kPriorRows));
  double width = std::max(kMinimumBand, kZ90 * shrunk);
  if (system_rows == 0) {
    width *= kUncalibratedSystemWidening;
    b.reasons.push_back(q.system + " has no published run: its band is that of other systems' runs, widened");
  }
  if (family_rows < kFamilyRows) {
    width *= kUncalibratedFamilyWidening;
    b.reasons.push_back("framework " + (q.framework.empty() ? std::string("(none)") : q.framework) + " (" + q.family +
                        ") has " + std::to_string(family_rows) + " published runs");
  }
  if (q.moe && moe_rows == 0) {
    width *= kUncalibratedFamilyWidening;
    b.reasons.push_back(q.model + " is a mixture-of-experts model and no MoE run is calibrated");
  }
  if (!q.uncalibrated_layers.empty()) {
    width *= kUncalibratedFamilyWidening;
    b.reasons.push_back(q.model + " has layer kinds no calibration run has (" + q.uncalibrated_layers + ")");
  }
  if (n < kFewRows) {
    width *= kFewRowsWidening;
    char text[96];
    std::snprintf(text, sizeof text, "only %.1f calibration rows' worth resemble it", n);
    b.reasons.emplace_back(text);
  }
  if (largest > 0 && q.gpus > kFarScaleRatio * largest) {
    width *= kFarScaleWidening;
    b.reasons.push_back(std::to_string(q.gpus) + " GPUs is more than 10× the largest calibrated run on " + q.system +
                        " (" + std::to_string(largest) + ")");
  }
  b.width = width;
  b.outside = !b.reasons.empty();
  return b;
}

AccuracyModel::Coverage AccuracyModel::coverage() const {
  Coverage c;
  for (std::size_t i = 0; i < outcomes_.size(); ++i) {
    ++c.rows;
    c.inside += std::abs(outcomes_[i].error) <= band_without(queries_[i], i).width ? 1 : 0;
  }
  return c;
}

bool is_tie(double advantage, const AccuracyBand& band) { return std::abs(advantage) <= band.width; }

}  // namespace dgx::llm
