// The texts around the tables: what was assumed and why (before), how the metrics are defined and that the numbers
// are projections, and how to measure instead (after). Honesty of numbers (DESIGN.md): no projected number without
// its label.
#pragma once

#include <string>

#include "assumptions.hpp"
#include "dgx/llm/serve_model.hpp"
#include "settings.hpp"

namespace dgx::plugins::llm_inference {

/// Model, system (and why this one), price (and why), the serving model and its accuracy; one line each.
[[nodiscard]] std::string assumptions_note(const InferenceSettings& settings, const Assumptions& assumptions);

/// How TTFT, TPOT, E2E, throughput, MBU, MFU and cost are defined (the benchmarks' conventions).
[[nodiscard]] std::string definitions_note();

/// That these are projections of a calibrated model, and how to measure instead.
[[nodiscard]] std::string projection_note(const Assumptions& assumptions);

/// "meets the SLOs (TTFT p99 143 ms <= 2.00 s, TPOT p99 58.2 ms > 50.0 ms: misses TPOT)".
[[nodiscard]] std::string slo_text(const llm::ServeSlo& slo, const llm::ServeProjection& projection);

}  // namespace dgx::plugins::llm_inference
