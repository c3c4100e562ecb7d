// How accurate the performance model is, stated with every projection: the calibration sets are projected once
// per process (a few tens of milliseconds), so the quoted errors can never go stale against the model.
#pragma once

#include <string>
#include <vector>

#include "dgx/llm/model_config.hpp"
#include "dgx/llm/precision.hpp"
#include "dgx/llm/system_profile.hpp"

namespace dgx::llm::workload {

/// E.g. "configs/baselines/calibration.md and calibration-2.md: mean 2.9%, max 9.7% over 72 published runs on
/// b200, gb200-nvl72, gb300-nvl72, h100-sxm".
[[nodiscard]] std::string calibration_summary();

/// The calibration error of a projection's class (system × precision), e.g. "h100-sxm fp8: mean 2.6%, max 6.6%
/// over 21 published runs", or "gb200-nvl72 bf16: no published run (uncalibrated)".
[[nodiscard]] std::string class_accuracy_text(const SystemProfile& system, Precision precision);

/// Where a configuration lies outside what was calibrated (outside_calibration), over the precisions of
/// the run, each reason once; empty when everything was calibrated.
[[nodiscard]] std::vector<std::string> calibration_scope(const ModelConfig& model, const SystemProfile& system,
                                                         const std::vector<Precision>& precisions, int seq_len);

/// The same for the fine-tuning set: "configs/baselines/finetune.md: mean 4.7%, max 20.7% over 18 published SFT
/// and LoRA runs on h100-sxm", followed, for a system no run was on, by "; b200 is uncalibrated for fine-tuning".
[[nodiscard]] std::string finetune_calibration_summary(const SystemProfile& system);

/// The serving model's accuracy: "configs/baselines/inference.md: mean 5.0%, max 6.3% over 7 published TensorRT-LLM
/// offline throughputs on h100-sxm", with "; b200 is uncalibrated ..." for a system none ran on.
[[nodiscard]] std::string serving_calibration_summary(const SystemProfile& system);

/// What every projection note begins with: "These numbers are projections of <model_version> for <system>, not
/// measurements on this machine (...); JSON carries the provenance). ", then `how_to_measure`.
[[nodiscard]] std::string projection_disclaimer(const std::string& model_version, const std::string& system,
                                                const std::string& how_to_measure);

}  // namespace dgx::llm::workload
