// What `dgxhost --plugin NAME` runs: the one place that decides it. NAME is, in this order,
//   1. platform-check: the platform check, a command of dgxhost, not a plugin (platform_check_command.cpp);
//   2. a preset: configs/workloads/NAME.toml in the first config directory that has one, else a preset a loaded
//      plugin embeds. It runs the preset's workload, with the preset as the lowest configuration layer;
//   3. a workload: "plugin:workload" always; a bare workload name when exactly one plugin offers it;
//   4. a plugin: its workload, when it offers exactly one.
// Without --plugin, NAME is the `workload` of a --config file's [preset] table. Any other NAME fails: a usage
// failure naming the choices when a workload or plugin name is ambiguous, else ExitCode::no_plugin naming the
// rejected plugin file of that name, or the close matches.
#pragma once

#include <string_view>

#include "dgx/core/plugin/plugin_registry.hpp"
#include "dgx/core/support/expected.hpp"

namespace dgx {

/// Whether `name` is the platform check's (step 1).
bool names_platform_check(std::string_view name);

/// `name` as a preset, a workload or a plugin (steps 2 to 4).
Expected<Target> resolve_name(const PluginRegistry& registry, std::string_view name);

/// What a run runs: `plugin_option` (--plugin), else `preset_workload` (a --config file's [preset] workload), else
/// a usage failure; ExitCode::no_plugin, listing the rejected files, when no plugin loaded at all.
Expected<Target> resolve_plugin_option(const PluginRegistry& registry, std::string_view plugin_option,
                                       std::string_view preset_workload);

}  // namespace dgx
