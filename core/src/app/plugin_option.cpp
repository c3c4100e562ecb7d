#include "dgx/core/app/plugin_option.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "dgx/core/app/platform_check.hpp"
#include "dgx/core/support/text.hpp"

namespace dgx {

namespace {

// Every name NAME may be: the close matches of an unknown one come from these.
std::vector<std::string> all_names(const PluginRegistry& registry) {
  std::vector<std::string> names;
  for (const PresetInfo* p : registry.presets()) {
    names.push_back(p->name);
  }
  for (const auto& plugin : registry.plugins()) {
    names.push_back(plugin->name);
    for (const WorkloadInfo& w : plugin->workloads) {
      names.push_back(w.name);
    }
  }
  return names;
}

std::vector<std::string> qualified_names(const std::vector<Target>& targets) {
  std::vector<std::string> qualified;
  for (const Target& t : targets) {
    qualified.push_back(t.plugin->name + ":" + t.workload->name);
  }
  return qualified;
}

// "plugin:workload" is always unambiguous.
Expected<Target> resolve_qualified(const PluginRegistry& registry, std::string_view name, std::size_t colon) {
  const LoadedPlugin* plugin = registry.find_plugin(name.substr(0, colon));
  const WorkloadInfo* workload = plugin != nullptr ? plugin->find_workload(name.substr(colon + 1)) : nullptr;
  if (workload == nullptr) {
    return plugin_failure("no workload '" + std::string(name) + "' is loaded");
  }
  return Target{plugin, workload, nullptr};
}

// A plugin's name stands for its workload when it has exactly one.
Expected<Target> resolve_plugin(const LoadedPlugin& plugin) {
  if (plugin.workloads.size() == 1) {
    return Target{&plugin, &plugin.workloads.front(), nullptr};
  }
  std::vector<Target> workloads;
  for (const WorkloadInfo& w : plugin.workloads) {
    workloads.push_back({&plugin, &w, nullptr});
  }
  if (workloads.empty()) {
    return plugin_failure("plugin '" + plugin.name + "' offers no workloads");
  }
  return Failure{ExitCode::usage, "plugin '" + plugin.name + "' offers several workloads; choose " +
                                      text::join(qualified_names(workloads), ", ")};
}

// Steps 3 and 4; a failure with an empty message when no workload or plugin has the name.
Expected<Target> resolve_workload(const PluginRegistry& registry, std::string_view name) {
  if (const auto colon = name.find(':'); colon != std::string_view::npos) {
    return resolve_qualified(registry, name, colon);
  }
  std::vector<Target> matches;
  for (const auto& plugin : registry.plugins()) {
    if (const WorkloadInfo* w = plugin->find_workload(name)) {
      matches.push_back({plugin.get(), w, nullptr});
    }
  }
  if (matches.size() == 1) {
    return matches.front();
  }
  if (matches.size() > 1) {
    return Failure{ExitCode::usage, "workload name '" + std::string(name) + "' is offered by several plugins; choose " +
                                        text::join(qualified_names(matches), " or ")};
  }
  if (const LoadedPlugin* plugin = registry.find_plugin(name)) {
    return resolve_plugin(*plugin);
  }
  return plugin_failure({});
}

// Step 2: a preset runs its workload, found as in steps 3 and 4.
Expected<Target> resolve_preset(const PluginRegistry& registry, const PresetInfo& preset) {
  auto target = resolve_workload(registry, preset.workload);
  if (!target) {
    const std::string reason = target.error().message.empty() ? "no loaded plugin offers it" : target.error().message;
    return Failure{target.error().code, "preset '" + preset.name + "' runs workload '" + preset.workload +
                                            "': " + reason + " (dgxhost --list shows plugins and rejected files)"};
  }
  target->preset = &preset;
  return target;
}

// Not found: a rejected file of that name explains more than a list of guesses.
Failure unknown_name(const PluginRegistry& registry, std::string_view name) {
  const std::string file_name = "libdgx-" + std::string(name) + ".so";
  for (const PluginRejection& r : registry.rejections()) {
    if (r.file.filename() == file_name) {
      return plugin_failure("plugin '" + std::string(name) + "' was found but rejected: " + r.line());
    }
  }
  std::string message = "no plugin, workload or preset named '" + std::string(name) + "'";
  if (const auto suggestion = text::did_you_mean(text::close_matches(name, all_names(registry), 5));
      !suggestion.empty()) {
    message += "; " + suggestion;
  }
  message += " (dgxhost --list shows what is available";
  if (!registry.rejections().empty()) {
    message += "; " + std::to_string(registry.rejections().size()) + " plugin file(s) were rejected";
  }
  return plugin_failure(message + ")");
}

}  // namespace

bool names_platform_check(std::string_view name) { return name == kPlatformCheck; }

Expected<Target> resolve_name(const PluginRegistry& registry, std::string_view name) {
  for (const PresetInfo* preset : registry.presets()) {
    if (preset->name == name) {
      return resolve_preset(registry, *preset);
    }
  }
  auto target = resolve_workload(registry, name);
  if (target || !target.error().message.empty()) {
    return target;
  }
  return unknown_name(registry, name);
}

Expected<Target> resolve_plugin_option(const PluginRegistry& registry, std::string_view plugin_option,
                                       std::string_view preset_workload) {
  const std::string_view name = plugin_option.empty() ? preset_workload : plugin_option;
  if (name.empty()) {
    return Failure{ExitCode::usage,
                   "nothing to run: give --plugin NAME (dgxhost --list shows the choices, --help the options)"};
  }
  if (registry.plugins().empty()) {
    std::string message = "no usable plugin found on the plugin search path";
    for (const PluginRejection& r : registry.rejections()) {
      message += "\n  rejected " + r.line();
    }
    return Failure{ExitCode::no_plugin, message};
  }
  return resolve_name(registry, name);
}

}  // namespace dgx
