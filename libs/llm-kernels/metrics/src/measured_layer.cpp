#include "dgx/llm/kernels/measured_layer.hpp"

#include "dgx/llm/system_catalog.hpp"

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

void time_sample(LayerProbe& probe, const dgx::sdk::SampleRequest& request, dgx::sdk::SampleResult& result) {
  result.seconds = probe.time_steps(static_cast<int>(request.iterations), request.flush_cache);
  result.timing = dgx::sdk::Timing::device_events;
  result.cache = request.flush_cache ? dgx::sdk::CacheState::cold : dgx::sdk::CacheState::hot;
}

}  // namespace dgx::llm::kernels
