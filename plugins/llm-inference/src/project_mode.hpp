// --mode project: one configuration (the first precision, parallel.*, serve.*) -> one projected row of table
// "project", with the assumptions before it and the latency, throughput, memory and utilisation breakdowns after.
#pragma once

#include <dgx/sdk/host.hpp>

#include "assumptions.hpp"
#include "dgx/llm/op_time.hpp"
#include "dgx/llm/serve_model.hpp"
#include "settings.hpp"

namespace dgx::plugins::llm_inference {

/// The projection of the settings' configuration, or a dgx::sdk::InvalidArgument naming why it cannot run: an
/// invalid layout, a length beyond the context, weights that do not fit, no memory left for a KV cache, a precision
/// the system lacks, or a fleet that is not a whole number of replicas.
[[nodiscard]] llm::ServeProjection project_configuration(const InferenceSettings& settings,
                                                         const Assumptions& assumptions,
                                                         const llm::OpTimeProvider* provider = nullptr);

/// The notes after a projected row: latency, throughput, memory, utilisation and the SLO check.
void add_projection_notes(const dgx::sdk::Host& host, const InferenceSettings& settings, const Assumptions& assumptions,
                          const llm::ServeProjection& projection);

/// Emits the row and notes. Throws dgx::sdk::InvalidArgument as project_configuration does.
void run_project(const dgx::sdk::Host& host, const InferenceSettings& settings, const Assumptions& assumptions);

}  // namespace dgx::plugins::llm_inference
