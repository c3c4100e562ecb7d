#include "dgx/llm/kernels/measured_layer.hpp"

#include <cstdio>

#include "dgx/llm/catalog.hpp"

namespace dgx::llm::kernels {

std::optional<std::string> measured_system(const dgx::sdk::Host& host, const std::string& device,
                                           const std::string& configured) {
  const auto system = find_system_for_device(device);
  if (!system) {
    host.warn(system.error().message + ": ops not measured and all communication come from the " + configured +
              " profile, and so does the peak of the layer's MFU");
    return std::nullopt;
  }
  if (system->name != configured) {
    host.info("measuring on " + device + ": projecting " + system->name + " (the configuration named " + configured +
              ")");
  }
  return system->name;
}

std::string measured_source(const MatchReport& match, const std::string& device, const std::string& system) {
  return "measured-calibrated projection: " + std::to_string(match.matched) + " of " + std::to_string(match.model_ops) +
         " layer ops measured on " + device +
         " (CUDA events); the rest, the first/last stage and all communication from dgx-llm-model on " + system;
}

void report_match(const dgx::sdk::Host& host, const MatchReport& match) {
  if (match.unmatched_model_ops.empty() && match.extra_measured_ops.empty()) {
    return;
  }
  char folded[32];
  std::snprintf(folded, sizeof folded, "%.3f", match.folded_seconds * 1e3);
  host.debug(std::to_string(match.unmatched_model_ops.size()) + " model ops kept their estimate; " +
             std::to_string(match.extra_measured_ops.size()) + " measured ops folded into the memory-bound ops (" +
             folded + " ms)");
}

void time_sample(LayerProbe& probe, const dgx::sdk::SampleRequest& request, dgx::sdk::SampleResult& result) {
  result.seconds = probe.time_steps(static_cast<int>(request.iterations), request.flush_cache);
  result.timing = dgx::sdk::Timing::device_events;
  result.cache = request.flush_cache ? dgx::sdk::CacheState::cold : dgx::sdk::CacheState::hot;
}

}  // namespace dgx::llm::kernels
