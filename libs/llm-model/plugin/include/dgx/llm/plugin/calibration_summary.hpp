// How accurate the performance model is, in one line for every projection: the calibration set is projected
// once per process (a few milliseconds), so the quoted errors can never go stale against the model.
#pragma once

#include <string>

#include "dgx/llm/system_profile.hpp"

namespace dgx::llm::plugin {

/// E.g. "configs/baselines/calibration.md: mean 4.4%, max 7.9% over 17 published runs on h100-sxm", followed,
/// for a system no run was on, by "; b200 is uncalibrated (it reuses the calibrated systems' efficiencies)".
[[nodiscard]] std::string calibration_summary(const SystemProfile& system);

/// The same for the fine-tuning set: "configs/baselines/finetune.md: mean 4.7%, max 20.7% over 18 published SFT
/// and LoRA runs on h100-sxm".
[[nodiscard]] std::string finetune_calibration_summary(const SystemProfile& system);

}  // namespace dgx::llm::plugin
