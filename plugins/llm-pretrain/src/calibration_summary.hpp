// How accurate the performance model is, stated with every projection: the calibration sets are projected once
// per process (a few tens of milliseconds), so the quoted errors can never go stale against the model.
#pragma once

#include <string>
#include <vector>

#include "dgx/llm/model_config.hpp"
#include "dgx/llm/precision.hpp"
#include "dgx/llm/system_profile.hpp"

namespace dgx::plugins::llm_pretrain {

/// E.g. "configs/baselines/calibration.md and calibration-2.md: mean 2.9%, max 9.7% over 72 published runs on
/// b200, gb200-nvl72, gb300-nvl72, h100-sxm".
[[nodiscard]] std::string calibration_summary();

/// The calibration error of a projection's class (system × precision), e.g. "h100-sxm fp8: mean 2.6%, max 6.6%
/// over 21 published runs", or "gb200-nvl72 bf16: no published run (uncalibrated)".
[[nodiscard]] std::string class_accuracy_text(const llm::SystemProfile& system, llm::Precision precision);

/// Where a configuration lies outside what was calibrated (llm::outside_calibration), over the precisions of
/// the run, each reason once; empty when everything was calibrated.
[[nodiscard]] std::vector<std::string> calibration_scope(const llm::ModelConfig& model,
                                                         const llm::SystemProfile& system,
                                                         const std::vector<llm::Precision>& precisions, int seq_len);

}  // namespace dgx::plugins::llm_pretrain
