#include "dgx/llm/calibration.hpp"

#include "dgx/llm/embedded_configs.hpp"
#include "dgx/llm/model_catalog.hpp"
#include "dgx/llm/step_model.hpp"
#include "dgx/llm/system_catalog.hpp"

#include "enum_names.hpp"
#include "toml_reader.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

namespace dgx::llm {

namespace {

using detail::ConfigError;
using detail::TomlTable;

constexpr std::string_view kCalibrationFile = "baselines/calibration.toml";

std::optional<CalibrationMetric> parse_metric(std::string_view text) {
  constexpr CalibrationMetric kAll[] = {CalibrationMetric::step_time_s, CalibrationMetric::tokens_per_s_per_gpu};
  return detail::parse_by_name(text, kAll);
}

CalibrationRow read_row(const TomlTable& t) {
  CalibrationRow row;
  row.section = t.string("section");
  row.label = t.string("label");
  row.model = t.string("model");
  row.system = t.string("system");
  row.gpus = t.positive_int("gpus");
  row.train.precision = detail::parse_enum(t, "precision", parse_precision, "bf16, fp8, mxfp8, nvfp4");
  row.train.layout = Layout{.tp = t.positive_int("tp"),
                            .pp = t.positive_int("pp"),
                            .cp = t.positive_int("cp"),
                            .vp = t.positive_int("vp"),
                            .ep = t.contains("ep") ? t.positive_int("ep") : 1};
  row.train.mbs = t.positive_int("mbs");
  row.train.gbs = t.positive_int("gbs");
  row.train.seq_len = t.positive_int("seq_len");
  row.metric = detail::parse_enum(t, "metric", parse_metric, "step_time_s, tokens_per_s_per_gpu");
  row.published = t.number("published");
  row.source = t.string("source");
  return row;
}

}  // namespace

std::string_view to_string(CalibrationMetric metric) {
  return metric == CalibrationMetric::step_time_s ? "step_time_s" : "tokens_per_s_per_gpu";
}

Expected<std::vector<CalibrationRow>> parse_calibration(std::string_view toml_text, std::string_view file) {
  auto rows = detail::read_toml(toml_text, file, [](const TomlTable& root) {
    std::vector<CalibrationRow> read;
    for (const TomlTable& t : root.tables("row")) {
      read.push_back(read_row(t));
    }
    return read;
  });
  if (rows && rows->empty()) {
    return Error{std::string(file) + ": no [[row]] tables"};
  }
  return rows;
}

Expected<std::vector<CalibrationRow>> load_calibration() {
  const auto text = embedded_config(kCalibrationFile);
  if (!text) {
    return Error{"configs/" + std::string(kCalibrationFile) + " is not embedded"};
  }
  return parse_calibration(*text, "configs/" + std::string(kCalibrationFile));
}

std::vector<CalibrationOutcome> run_calibration(const std::vector<CalibrationRow>& rows) {
  std::map<std::string, std::unique_ptr<StepModel>> models;  // one per (model, system): shares shape caches
  std::vector<CalibrationOutcome> outcomes;
  for (const CalibrationRow& row : rows) {
    CalibrationOutcome outcome;
    outcome.row = row;
    const std::string key = row.model + "@" + row.system;
    if (!models.contains(key)) {
      auto model = find_model(row.model);
      auto system = find_system(row.system);
      if (!model || !system) {
        outcome.failure = !model ? model.error().message : system.error().message;
        outcomes.push_back(outcome);
        continue;
      }
      models[key] = std::make_unique<StepModel>(std::move(model).value(), std::move(system).value());
    }
    const auto projection = models[key]->project(row.gpus, row.train);
    if (!projection) {
      outcome.failure = projection.error().message;
    } else {
      outcome.projected =
          row.metric == CalibrationMetric::step_time_s ? projection->step_time_s : projection->tokens_per_s_per_gpu;
      outcome.error = (outcome.projected - row.published) / row.published;
    }
    outcomes.push_back(outcome);
  }
  return outcomes;
}

std::vector<ErrorStats> error_stats(const std::vector<CalibrationOutcome>& outcomes) {
  std::vector<ErrorStats> stats;
  ErrorStats all{.section = "all"};
  const auto add = [](ErrorStats& s, const CalibrationOutcome& o) {
    ++s.rows;
    if (!o.failure.empty()) {
      ++s.failed;
      return;
    }
    const double projected = s.rows - s.failed;
    s.mean_abs += (std::abs(o.error) - s.mean_abs) / projected;
    s.max_abs = std::max(s.max_abs, std::abs(o.error));
  };
  for (const CalibrationOutcome& o : outcomes) {
    auto found =
        std::find_if(stats.begin(), stats.end(), [&](const ErrorStats& s) { return s.section == o.row.section; });
    if (found == stats.end()) {
      stats.push_back(ErrorStats{.section = o.row.section});
      found = stats.end() - 1;
    }
    add(*found, o);
    add(all, o);
  }
  stats.push_back(all);
  return stats;
}

}  // namespace dgx::llm
