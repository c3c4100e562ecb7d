// What the measure modes of the LLM training plugins (llm-pretrain, llm-finetune) share around a layer probe:
// which system profile a measurement calibrates, and one timed sample of the host's runner.
#pragma once

#include <optional>
#include <string>

#include <dgx/sdk/host.hpp>
#include <dgx/sdk/workload.hpp>

#include "dgx/llm/kernels/layer_probe.hpp"
#include "dgx/llm/kernels/measured_ops.hpp"

namespace dgx::llm::kernels {

/// The system a measurement on `device` calibrates: the catalog's profile of that device (configs/systems,
/// device_names), the host told when it replaces `configured`; nullopt with a warning when the catalog has none,
/// so that the configured profile stands in for the ops not measured, the communication and the peak.
[[nodiscard]] std::optional<std::string> measured_system(const dgx::sdk::Host& host, const std::string& device,
                                                         const std::string& configured);

/// The source field of a measured-calibrated projection: how many of the layer's ops were measured on `device`,
/// and that the rest, the first/last stage and the communication come from the model on `system`.
[[nodiscard]] std::string measured_source(const MatchReport& match, const std::string& device,
                                          const std::string& system);

/// Tells the host (debug) what the matching left to the model and what it folded into the memory-bound ops.
void report_match(const dgx::sdk::Host& host, const MatchReport& match);

/// One sample of the host's runner: `request.iterations` layer steps back to back between device events.
void time_sample(LayerProbe& probe, const dgx::sdk::SampleRequest& request, dgx::sdk::SampleResult& result);

}  // namespace dgx::llm::kernels
