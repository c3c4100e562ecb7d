// The texts that surround the tables: what was assumed and why (before), and that the numbers are projections
// and how to measure instead (after). Honesty of numbers (DESIGN.md): no projected number without its label.
#pragma once

#include <string>

#include "assumptions.hpp"
#include "dgx/llm/memory_model.hpp"
#include "dgx/llm/step_model.hpp"
#include "settings.hpp"

namespace dgx::plugins::llm_pretrain {

/// Model, system (and why this one), framework release, price (and why), performance model and its calibration,
/// with the accuracy of the run's classes (system × precision); one line each.
[[nodiscard]] std::string assumptions_note(const PretrainSettings& settings, const Assumptions& assumptions);

/// Where the configuration lies outside the calibrated runs (system, precision, framework, model size or kind,
/// sequence length), one line each; empty when it lies inside.
[[nodiscard]] std::string scope_note(const PretrainSettings& settings, const Assumptions& assumptions);

/// That these are projections of a calibrated model, and how to measure instead.
[[nodiscard]] std::string projection_note(const Assumptions& assumptions);

/// "12.3 s = compute 9.9 s + TP 0.12 s + ... + stragglers 0.30 s", the parts that are not zero.
[[nodiscard]] std::string breakdown_text(const llm::StepBreakdown& breakdown);

/// "71.2 GiB of 80.0 GiB: weights 8.1, gradients 8.1, ... GiB".
[[nodiscard]] std::string memory_text(const llm::MemoryBreakdown& memory);

}  // namespace dgx::plugins::llm_pretrain
