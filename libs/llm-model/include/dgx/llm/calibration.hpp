// The calibration sets (configs/baselines/calibration.toml, calibration-2.toml, calibration-3.toml and finetune.toml,
// encoded from the .md files beside them): published NeMo / Megatron-Bridge, torchtitan and MLPerf measurements the
// model is checked against, each projected with the framework profile of its release, and the projection error per
// row, per section (release or source), per class (system × precision) and per group (framework × system ×
// precision).
#pragma once

#include "dgx/llm/expected.hpp"
#include "dgx/llm/finetune.hpp"
#include "dgx/llm/layout.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dgx::llm {

/// What a row compares: section A publishes step time, section B tokens/s per GPU.
enum class CalibrationMetric : unsigned char { step_time_s, tokens_per_s_per_gpu };

[[nodiscard]] std::string_view to_string(CalibrationMetric metric);

struct CalibrationRow {
  std::string section;  ///< "A", "B" (calibration.toml), or the release, "25.09" ... (calibration-2.toml)
  std::string label;    ///< e.g. "llama3.1-8b bf16 8 GPUs"
  std::string model;
  std::string system;
  std::string framework;  ///< configs/frameworks/<framework>.toml, the release the run used
  int gpus = 0;
  TrainConfig train;
  CalibrationMetric metric = CalibrationMetric::step_time_s;
  double published = 0;
  std::string source;
  /// Fine-tuning rows (baselines/finetune.toml: keys method, packed, avg_tokens_per_sample, lora_rank,
  /// lora_alpha, lora_targets); nullopt for pretraining.
  std::optional<FineTune> finetune;
  /// false: the published run fits through means the memory model does not describe; its time is compared
  /// anyway (key check_memory, default true; `memory_note` says why).
  bool check_memory = true;
  std::string memory_note;
  std::string note;  ///< a correction of the source table, if any
};

[[nodiscard]] Expected<std::vector<CalibrationRow>> parse_calibration(std::string_view toml_text,
                                                                      std::string_view file);
/// The pretraining rows of the embedded calibration files, in order: baselines/calibration.toml, calibration-2.toml,
/// calibration-3.toml (its LoRA rows go with the fine-tuning set).
[[nodiscard]] Expected<std::vector<CalibrationRow>> load_calibration();
/// Every row of one embedded baseline file, by its path relative to configs/ ("baselines/calibration-3.toml").
[[nodiscard]] Expected<std::vector<CalibrationRow>> load_calibration_file(std::string_view file);
/// The fine-tuning rows: baselines/finetune.toml (SFT and LoRA runs, finetune.md), then the LoRA rows of the
/// calibration files (calibration-3.toml: MLPerf's Llama 2 70B LoRA).
[[nodiscard]] Expected<std::vector<CalibrationRow>> load_finetune_calibration();

/// The embedded calibration files of load_calibration(), relative to configs/.
[[nodiscard]] std::vector<std::string> calibration_files();

struct CalibrationOutcome {
  CalibrationRow row;
  double projected = 0;
  double error = 0;     ///< (projected − published) / published
  std::string failure;  ///< non-empty when the row could not be projected (then error is meaningless)
};

/// Projects every row with the embedded catalogs (the system as the row's framework release runs it) and the
/// default op-time provider (fine-tuning rows with their method: StepModel::set_finetune).
[[nodiscard]] std::vector<CalibrationOutcome> run_calibration(const std::vector<CalibrationRow>& rows);

struct ErrorStats {
  std::string section;  ///< a section or class name, or "all"
  int rows = 0;
  int failed = 0;
  double mean_abs = 0;  ///< mean |error| over the projected rows
  double max_abs = 0;
};

/// One entry per section in order of appearance, then "all".
[[nodiscard]] std::vector<ErrorStats> error_stats(const std::vector<CalibrationOutcome>& outcomes);

/// The class of a row: "<system> <precision>", e.g. "h100-sxm fp8".
[[nodiscard]] std::string calibration_class(std::string_view system, Precision precision);

/// One entry per class (system × precision), sorted by name, then "all".
[[nodiscard]] std::vector<ErrorStats> class_stats(const std::vector<CalibrationOutcome>& outcomes);

/// The group of a row, the unit the accuracy targets are stated for: "<framework> <system> <precision>", e.g.
/// "nemo-26.02.01 gb200-nvl72 mxfp8".
[[nodiscard]] std::string calibration_group(std::string_view framework, std::string_view system, Precision precision);

/// One entry per group (framework × system × precision), sorted by name, then "all".
[[nodiscard]] std::vector<ErrorStats> group_stats(const std::vector<CalibrationOutcome>& outcomes);

/// The stated accuracy of a projection on `system` in `precision`: the error statistics of that class over
/// the embedded pretraining calibration sets (computed once per process), or nullopt when no published run of that
/// class exists.
[[nodiscard]] std::optional<ErrorStats> class_accuracy(std::string_view system, Precision precision);

}  // namespace dgx::llm
