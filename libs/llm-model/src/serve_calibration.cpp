#include "dgx/llm/serve_calibration.hpp"

#include "dgx/llm/embedded_configs.hpp"
#include "dgx/llm/model_catalog.hpp"
#include "dgx/llm/serve_model.hpp"
#include "dgx/llm/system_catalog.hpp"

#include "baseline_rows.hpp"
#include "toml_reader.hpp"

#include <map>
#include <memory>

namespace dgx::llm {

namespace {

using detail::TomlTable;

constexpr std::string_view kFile = "baselines/inference.toml";

ServeCalibrationRow read_row(const TomlTable& t) {
  ServeCalibrationRow row;
  row.section = t.string("section");
  row.label = t.string("label");
  row.model = t.string("model");
  row.system = t.string("system");
  ServeConfig& c = row.config;
  c.layout = ServeLayout{.tp = t.positive_int("tp"),
                         .pp = t.contains("pp") ? t.positive_int("pp") : 1,
                         .ep = t.contains("ep") ? t.positive_int("ep") : 1};
  c.precision = detail::parse_enum(t, "precision", parse_precision, "bf16, fp8, mxfp8, nvfp4");
  c.kv_precision = detail::parse_enum(t, "kv_precision", parse_precision, "bf16, fp8, nvfp4");
  c.isl = t.positive_int("isl");
  c.osl = t.positive_int("osl");
  c.concurrency = t.contains("concurrency") ? static_cast<int>(t.integer("concurrency")) : 0;
  c.kv_cache_fraction = t.number("kv_cache_fraction");
  row.published = t.number("published");
  row.source = t.string("source");
  return row;
}

}  // namespace

Expected<std::vector<ServeCalibrationRow>> parse_serve_calibration(std::string_view toml_text, std::string_view file) {
  return detail::read_baseline_rows(toml_text, file, read_row);
}

Expected<std::vector<ServeCalibrationRow>> load_serve_calibration() {
  return detail::parse_embedded(kFile, parse_serve_calibration);
}

std::vector<ServeCalibrationOutcome> run_serve_calibration(const std::vector<ServeCalibrationRow>& rows) {
  std::map<std::string, std::unique_ptr<ServeModel>> models;
  std::vector<ServeCalibrationOutcome> outcomes;
  for (const ServeCalibrationRow& row : rows) {
    ServeCalibrationOutcome outcome{.row = row, .projected = 0, .error = 0, .failure = {}};
    const std::string key = row.model + "@" + row.system;
    if (!models.contains(key)) {
      auto model = find_model(row.model);
      auto system = find_system(row.system);
      if (!model || !system) {
        outcome.failure = !model ? model.error().message : system.error().message;
        outcomes.push_back(outcome);
        continue;
      }
      models[key] = std::make_unique<ServeModel>(std::move(model).value(), std::move(system).value());
    }
    const auto projection = models[key]->project(row.config);
    if (!projection) {
      outcome.failure = projection.error().message;
    } else {
      outcome.projected = projection->output_tokens_per_s;
      outcome.error = (outcome.projected - row.published) / row.published;
    }
    outcomes.push_back(outcome);
  }
  return outcomes;
}

std::vector<ErrorStats> serve_error_stats(const std::vector<ServeCalibrationOutcome>& outcomes) {
  std::vector<CalibrationOutcome> as_training;
  as_training.reserve(outcomes.size());
  for (const ServeCalibrationOutcome& o : outcomes) {
    CalibrationOutcome t;
    t.row.section = o.row.section;
    t.row.label = o.row.label;
    t.projected = o.projected;
    t.error = o.error;
    t.failure = o.failure;
    as_training.push_back(std::move(t));
  }
  return error_stats(as_training);
}

}  // namespace dgx::llm
