// The texts that surround the tables: what was assumed and why (before), and that the numbers are projections
// and how to measure instead (after). Honesty of numbers (DESIGN.md): no projected number without its label.
#pragma once

#include <string>

#include "assumptions.hpp"
#include "dgx/llm/memory_model.hpp"
#include "dgx/llm/step_model.hpp"
#include "dgx/llm/workload/training_notes.hpp"
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

// The step-time and memory texts every LLM training workload shares (libs/llm-model/plugin, training_notes.hpp).
using llm::workload::breakdown_text;
using llm::workload::memory_text;

}  // namespace dgx::plugins::llm_pretrain
