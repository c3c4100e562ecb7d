// What --list and --describe print, as text or JSON.
#pragma once

#include <string>
#include <vector>

#include "dgx/core/config/layered_config.hpp"
#include "dgx/core/plugin/plugin_registry.hpp"
#include "dgx/json/json.hpp"

namespace dgx {

std::string list_text(const PluginRegistry& registry, const std::vector<SearchPath>& plugin_paths);
json::Value list_json(const PluginRegistry& registry, const std::vector<SearchPath>& plugin_paths);

/// The workload's parameters (with the host's runner.* keys when it measures) and their effective values.
std::string describe_text(const Target& target, const ResolvedConfig& config);
json::Value describe_json(const Target& target, const ResolvedConfig& config);

}  // namespace dgx
