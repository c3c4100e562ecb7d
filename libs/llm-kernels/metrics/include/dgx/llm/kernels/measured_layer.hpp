// What the measure modes of the LLM training plugins (llm-pretrain, llm-finetune) share around a layer probe:
// which system profile a measurement calibrates, and one timed sample of the host's runner.
#pragma once

#include <optional>
#include <string>

#include <dgx/sdk/host.hpp>
#include <dgx/sdk/workload.hpp>

#include "dgx/llm/kernels/layer_probe.hpp"

namespace dgx::llm::kernels {

/// The system a measurement on `device` calibrates: the catalog's profile of that device (configs/systems,
/// device_names), the host told when it replaces `configured`; nullopt with a warning when the catalog has none,
/// so that the configured profile stands in for the ops not measured, the communication and the peak.
[[nodiscard]] std::optional<std::string> measured_system(const dgx::sdk::Host& host, const std::string& device,
                                                         const std::string& configured);

/// One sample of the host's runner: `request.iterations` layer steps back to back between device events.
void time_sample(LayerProbe& probe, const dgx::sdk::SampleRequest& request, dgx::sdk::SampleResult& result);

}  // namespace dgx::llm::kernels
