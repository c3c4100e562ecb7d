#include "dgx/llm/calibration.hpp"

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/step_model.hpp"

#include "baseline_rows.hpp"
#include "dgx/catalog/enum_names.hpp"
#include "dgx/catalog/toml_table.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <memory>

namespace dgx::llm {

namespace {

using catalog::ConfigError;
using catalog::TomlTable;

constexpr std::string_view kCalibrationFiles[] = {"baselines/calibration.toml", "baselines/calibration-2.toml",
                                                  "baselines/calibration-3.toml"};
constexpr std::string_view kFinetuneFile = "baselines/finetune.toml";

std::optional<FineTune> read_finetune(const TomlTable& t) {
  if (!t.contains("method")) {
    return std::nullopt;
  }
  FineTune f;
  f.method = catalog::parse_enum(t, "method", parse_finetune_method, "sft, lora");
  f.packed = t.boolean("packed", true);
  f.avg_tokens_per_sample = t.contains("avg_tokens_per_sample") ? t.number("avg_tokens_per_sample") : 0.0;
  if (t.contains("lora_rank")) {
    f.lora.rank = t.positive_int("lora_rank");
  }
  if (t.contains("lora_alpha")) {
    f.lora.alpha = t.number("lora_alpha");
  }
  if (t.contains("lora_targets")) {
    f.lora.targets.clear();
    for (const std::string& text : t.strings("lora_targets")) {
      const auto target = parse_lora_target(text);
      if (!target) {
        throw ConfigError(t.where("lora_targets") + " has \"" + text + "\", expected qkv, proj, fc1 or fc2");
      }
      f.lora.targets.push_back(*target);
    }
  }
  return f;
}

std::optional<CalibrationMetric> parse_metric(std::string_view text) {
  constexpr CalibrationMetric kAll[] = {CalibrationMetric::step_time_s, CalibrationMetric::tokens_per_s_per_gpu};
  return catalog::parse_by_name(text, kAll);
}

CalibrationRow read_row(const TomlTable& t) {
  CalibrationRow row;
  row.section = t.string("section");
  row.label = t.string("label");
  row.model = t.string("model");
  row.system = t.string("system");
  row.framework = t.string("framework");
  row.gpus = t.positive_int("gpus");
  row.train.precision = catalog::parse_enum(t, "precision", parse_precision, "bf16, fp8, mxfp8, nvfp4");
  row.train.layout = Layout{.tp = t.positive_int("tp"),
                            .pp = t.positive_int("pp"),
                            .cp = t.positive_int("cp"),
                            .vp = t.positive_int("vp"),
                            .ep = t.contains("ep") ? t.positive_int("ep") : 1,
                            .etp = t.contains("etp") ? t.positive_int("etp") : kAutoEtp};
  row.train.mbs = t.positive_int("mbs");
  row.train.gbs = t.positive_int("gbs");
  row.train.seq_len = t.positive_int("seq_len");
  row.train.fsdp = t.boolean("fsdp", false);
  row.train.offload_layers = t.contains("offload_layers") ? t.positive_int("offload_layers") : 0;
  if (t.contains("recompute")) {
    row.train.recompute = catalog::parse_enum(t, "recompute", parse_recompute, "none, selective, full");
  }
  if (t.contains("recompute_modules")) {
    row.train.recompute_modules = 0;
    for (const std::string& text : t.strings("recompute_modules")) {
      const auto module = parse_recompute_module(text);
      if (!module) {
        throw ConfigError(t.where("recompute_modules") + " has \"" + text +
                          "\", expected core_attn, mla_up_proj, moe_act, layernorm, mlp, moe or shared_experts");
      }
      row.train.recompute_modules |= module_bit(*module);
    }
  }
  row.train.ep_overlap = t.boolean("ep_overlap", false);
  for (const std::string& text : t.contains("cuda_graphs") ? t.strings("cuda_graphs") : std::vector<std::string>{}) {
    const auto scope = parse_graph_scope(text);
    if (!scope) {
      throw ConfigError(t.where("cuda_graphs") + " has \"" + text +
                        "\", expected attn, mlp, moe_router or moe_preprocess");
    }
    row.train.cuda_graphs |= scope_bit(*scope);
  }
  if (t.contains("moe_dispatcher")) {
    row.train.moe_dispatcher = catalog::parse_enum(t, "moe_dispatcher", parse_moe_dispatcher, "alltoall, flex");
  }
  row.metric = catalog::parse_enum(t, "metric", parse_metric, "step_time_s, tokens_per_s_per_gpu");
  row.published = t.number("published");
  row.source = t.string("source");
  row.finetune = read_finetune(t);
  row.check_memory = t.boolean("check_memory", true);
  row.memory_note = t.contains("memory_note") ? t.string("memory_note") : std::string();
  row.note = t.optional_string("note").value_or("");
  return row;
}

}  // namespace

std::string_view to_string(CalibrationMetric metric) {
  return metric == CalibrationMetric::step_time_s ? "step_time_s" : "tokens_per_s_per_gpu";
}

Expected<std::vector<CalibrationRow>> parse_calibration(std::string_view toml_text, std::string_view file) {
  return detail::read_baseline_rows(toml_text, file, read_row);
}

namespace {
/// The rows of the calibration files that are (`finetune`) or are not fine-tuning rows, in file order.
Expected<std::vector<CalibrationRow>> rows_of_kind(bool finetune) {
  std::vector<CalibrationRow> all;
  for (const std::string_view file : kCalibrationFiles) {
    auto rows = detail::parse_embedded(file, parse_calibration);
    if (!rows) {
      return rows.error();
    }
    for (CalibrationRow& row : *rows) {
      if (row.finetune.has_value() == finetune) {
        all.push_back(std::move(row));
      }
    }
  }
  return all;
}
}  // namespace

Expected<std::vector<CalibrationRow>> load_calibration() { return rows_of_kind(false); }

Expected<std::vector<CalibrationRow>> load_calibration_file(std::string_view file) {
  return detail::parse_embedded(file, parse_calibration);
}

Expected<std::vector<CalibrationRow>> load_finetune_calibration() {
  auto rows = detail::parse_embedded(kFinetuneFile, parse_calibration);
  if (!rows) {
    return rows;
  }
  auto lora = rows_of_kind(true);  // the LoRA rows of the pretraining files (calibration-3.toml's MLPerf runs)
  if (!lora) {
    return lora.error();
  }
  rows->insert(rows->end(), lora->begin(), lora->end());
  return rows;
}

std::vector<std::string> calibration_files() {
  return std::vector<std::string>(std::begin(kCalibrationFiles), std::end(kCalibrationFiles));
}

std::vector<CalibrationOutcome> run_calibration(const std::vector<CalibrationRow>& rows) {
  // One model per (model, system, framework, fine-tuning method): rows of one kind share shape caches.
  std::map<std::string, std::unique_ptr<StepModel>> models;
  std::vector<CalibrationOutcome> outcomes;
  for (const CalibrationRow& row : rows) {
    CalibrationOutcome outcome;
    outcome.row = row;
    // Rows share a model only when their fine-tuning is the same (method, adapters, samples): the shape cache
    // holds the method's ops.
    const std::string method =
        row.finetune ? "/" + std::string(to_string(row.finetune->method)) + "/" + targets_label(row.finetune->lora) +
                           "/" + std::to_string(row.finetune->lora.rank) + "/" +
                           std::to_string(row.finetune->avg_tokens_per_sample) + (row.finetune->packed ? "/p" : "")
                     : "";
    const std::string key = row.model + "@" + row.system + "@" + row.framework + method;
    if (!models.contains(key)) {
      auto model = find_model(row.model);
      auto system = find_system(row.system);
      auto framework = find_framework(row.framework);
      if (!model || !system || !framework) {
        outcome.failure = !model ? model.error().message : !system ? system.error().message : framework.error().message;
        outcomes.push_back(outcome);
        continue;
      }
      models[key] = std::make_unique<StepModel>(std::move(model).value(), apply_framework(*system, *framework));
      models[key]->set_finetune(row.finetune);
    }
    const auto projection = models[key]->project(row.gpus, row.train, std::nullopt,
                                                 row.check_memory ? MemoryCheck::enforce : MemoryCheck::report);
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

namespace {

void add_outcome(ErrorStats& s, const CalibrationOutcome& o) {
  ++s.rows;
  if (!o.failure.empty()) {
    ++s.failed;
    return;
  }
  const double projected = s.rows - s.failed;
  s.mean_abs += (std::abs(o.error) - s.mean_abs) / projected;
  s.max_abs = std::max(s.max_abs, std::abs(o.error));
}

/// Statistics per group (in order of first appearance), then "all".
template <class GroupOf>
std::vector<ErrorStats> grouped_stats(const std::vector<CalibrationOutcome>& outcomes, GroupOf group_of) {
  std::vector<ErrorStats> stats;
  ErrorStats all{.section = "all"};
  for (const CalibrationOutcome& o : outcomes) {
    const std::string group = group_of(o);
    auto found = std::find_if(stats.begin(), stats.end(), [&](const ErrorStats& s) { return s.section == group; });
    if (found == stats.end()) {
      stats.push_back(ErrorStats{.section = group});
      found = stats.end() - 1;
    }
    add_outcome(*found, o);
    add_outcome(all, o);
  }
  stats.push_back(all);
  return stats;
}

}  // namespace

std::vector<ErrorStats> error_stats(const std::vector<CalibrationOutcome>& outcomes) {
  return grouped_stats(outcomes, [](const CalibrationOutcome& o) { return o.row.section; });
}

std::string calibration_class(std::string_view system, Precision precision) {
  return std::string(system) + " " + std::string(to_string(precision));
}

std::vector<ErrorStats> class_stats(const std::vector<CalibrationOutcome>& outcomes) {
  auto stats = grouped_stats(
      outcomes, [](const CalibrationOutcome& o) { return calibration_class(o.row.system, o.row.train.precision); });
  std::sort(stats.begin(), stats.end() - 1,
            [](const ErrorStats& a, const ErrorStats& b) { return a.section < b.section; });
  return stats;
}

std::string calibration_group(std::string_view framework, std::string_view system, Precision precision) {
  return std::string(framework) + " " + calibration_class(system, precision);
}

std::vector<ErrorStats> group_stats(const std::vector<CalibrationOutcome>& outcomes) {
  auto stats = grouped_stats(outcomes, [](const CalibrationOutcome& o) {
    return calibration_group(o.row.framework, o.row.system, o.row.train.precision);
  });
  std::sort(stats.begin(), stats.end() - 1,
            [](const ErrorStats& a, const ErrorStats& b) { return a.section < b.section; });
  return stats;
}

std::optional<ErrorStats> class_accuracy(std::string_view system, Precision precision) {
  static const std::vector<ErrorStats> classes = [] {
    const auto rows = load_calibration();
    return rows ? class_stats(run_calibration(*rows)) : std::vector<ErrorStats>{};
  }();
  const std::string name = calibration_class(system, precision);
  for (const ErrorStats& s : classes) {
    if (s.section == name && s.rows > s.failed) {
      return s;
    }
  }
  return std::nullopt;
}

}  // namespace dgx::llm
