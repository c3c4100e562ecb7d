// The plugin spec of an LLM plugin: what it states of its own (name, description, its workload's kind, summary,
// precisions, parameters, measure check and what its rows mean) and what every LLM plugin shares: version 1.0.0 by
// dgxhost, one workload named after the plugin with measure, project and explore modes, and the embedded presets whose
// preset.workload is that name (presets.hpp).
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <dgx/sdk/plugin.hpp>

#include "dgx/llm/workload/declarations.hpp"
#include "dgx/llm/workload/workload.hpp"

namespace dgx::llm::workload {

/// What an LLM plugin states of its own.
struct PluginInfo {
  std::string name;  ///< the plugin's and its workload's name ("llm-pretrain"), preset.workload of its presets
  std::string description;
  dgx::sdk::Kind kind = dgx::sdk::Kind::pretrain;
  std::string summary;  ///< the workload's
  std::vector<dgx_precision> precisions;
  std::vector<dgx::sdk::Param> params;
  /// Throws dgx::sdk::NoDevice or Unsupported when measure mode cannot run here (the workload's can_measure).
  std::function<void(dgx::sdk::Host&)> can_measure;
  /// What its rows mean (declarations.hpp: training_declarations, serving_declarations, and its own additions).
  RowDeclarations rows;
};

namespace detail {

/// The spec without its workload, and the workload's spec without its factory.
[[nodiscard]] dgx::sdk::PluginSpec plugin_part(const PluginInfo& info);
[[nodiscard]] dgx::sdk::WorkloadSpec workload_part(PluginInfo info);

}  // namespace detail

/// The spec of a plugin whose workload is Workload<Job>. A plugin with a second workload adds it to the result.
template <class Job> [[nodiscard]] dgx::sdk::PluginSpec plugin_spec(PluginInfo info) {
  dgx::sdk::PluginSpec spec = detail::plugin_part(info);
  spec.add_workload<Workload<Job>>(detail::workload_part(std::move(info)));
  return spec;
}

}  // namespace dgx::llm::workload
