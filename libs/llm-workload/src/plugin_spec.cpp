#include "dgx/llm/workload/plugin_spec.hpp"

#include "dgx/llm/workload/presets.hpp"

#include "dgx/catalog/host_search_dirs.hpp"

namespace dgx::llm::workload::detail {

dgx::sdk::PluginSpec plugin_part(const PluginInfo& info) {
  dgx::sdk::PluginSpec spec{
      .name = info.name, .version = "1.0.0", .vendor = "dgxhost", .description = info.description};
  spec.presets = embedded_presets(info.name);
  spec.init = [](dgx::sdk::Host& host) { catalog::search_host_dirs(host); };  // a user's models and systems
  return spec;
}

dgx::sdk::WorkloadSpec workload_part(PluginInfo info) {
  return dgx::sdk::WorkloadSpec{
      .name = std::move(info.name),
      .kind = info.kind,
      .summary = std::move(info.summary),
      .precisions = std::move(info.precisions),
      .params = std::move(info.params),
      .modes = {dgx::sdk::Mode::measure, dgx::sdk::Mode::project, dgx::sdk::Mode::explore},
      .factory = {},
      .can_measure = std::move(info.can_measure),
      .metrics = std::move(info.rows.metrics),
      .identity_keys = std::move(info.rows.identity_keys),
      .charts = std::move(info.rows.charts),
  };
}

}  // namespace dgx::llm::workload::detail
