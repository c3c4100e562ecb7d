#include "dgx/core/run/run_layers.hpp"

#include <algorithm>

#include "dgx/core/config/nccl_flags.hpp"
#include "dgx/core/config/runner_settings.hpp"
#include "dgx/core/config/toml_reader.hpp"
#include "dgx/core/support/text.hpp"

namespace dgx {

Expected<RunLayers> read_layers(const CliOptions& options, const PresetInfo* preset) {
  RunLayers layers;
  if (preset != nullptr) {
    auto parsed = preset->file.empty() ? parse_toml_config(preset->config_toml, "preset '" + preset->name + "'", {})
                                       : load_toml_config(preset->file, "preset '" + preset->name + "'");
    if (!parsed) {
      return parsed.error();
    }
    layers.storage.push_back(std::move(parsed->layer));
  }
  for (const std::string& file : options.config_files) {
    auto parsed = load_toml_config(file, "config file");
    if (!parsed) {
      return parsed.error();
    }
    if (const json::Value* w = parsed->preset.find("workload"); w != nullptr && w->is_string()) {
      layers.preset_workload = w->as_string();
    }
    layers.storage.push_back(std::move(parsed->layer));
  }
  ConfigLayer sets{"--set", {}};
  for (const std::string& argument : options.sets) {
    auto entry = parse_set_argument(argument);
    if (!entry) {
      return entry.error();
    }
    sets.entries.push_back(std::move(entry.value()));
  }
  layers.storage.push_back(std::move(sets));
  return layers;
}

std::vector<ParamSpec> schema_for(const WorkloadInfo& workload) {
  std::vector<ParamSpec> schema = workload.params;
  if (!workload.supports(DGX_MODE_MEASURE)) {
    return schema;
  }
  for (ParamSpec& p : RunnerSettings::params()) {
    const bool overridden =
        std::any_of(workload.params.begin(), workload.params.end(), [&](const ParamSpec& w) { return w.key == p.key; });
    if (!overridden) {
      schema.push_back(std::move(p));
    }
  }
  return schema;
}

Expected<std::vector<ConfigEntry>> alias_entries(const CliOptions& options, const WorkloadInfo& workload) {
  std::vector<ConfigEntry> entries;
  for (const auto& [letter, value] : options.aliases) {
    const std::string& wanted = letter;  // clang 14 (clang-tidy) cannot capture a structured binding (P1091)
    const auto it = std::find_if(workload.params.begin(), workload.params.end(),
                                 [&](const ParamSpec& p) { return p.alias == wanted; });
    if (it == workload.params.end()) {
      std::vector<std::string> known;
      for (const ParamSpec& p : workload.params) {
        if (!p.alias.empty()) {
          known.push_back("-" + p.alias + " (" + p.key + ")");
        }
      }
      return Failure{ExitCode::usage, "unknown option -" + letter + " for workload " + workload.name +
                                          (known.empty() ? std::string(" (it has no one-letter options)")
                                                         : "; its one-letter options: " + text::join(known, ", ")) +
                                          nccl_tests_hint(letter, value) +
                                          " (dgxhost --help lists dgxhost's own options)"};
    }
    auto entry = parse_set_argument(it->key + "=" + value);
    if (!entry) {
      return Failure{ExitCode::usage, "-" + letter + " " + value + ": " + entry.error().message};
    }
    entry->where = {"-" + letter, {}, 0, 0, "-" + letter + " " + value};
    entries.push_back(std::move(entry.value()));
  }
  return entries;
}

}  // namespace dgx
