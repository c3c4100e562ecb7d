// The configuration of one run, before it is resolved: the layers (a preset, --config files, --set arguments
// and a workload's one-letter aliases such as -b 8) and the schema they are checked against (the workload's keys
// plus the runner's when it measures).
#pragma once

#include <string>
#include <vector>

#include "dgx/core/config/cli.hpp"
#include "dgx/core/config/layered_config.hpp"
#include "dgx/core/plugin/plugin_loader.hpp"
#include "dgx/core/support/expected.hpp"

namespace dgx {

struct RunLayers {
  std::vector<ConfigLayer> storage;  // preset, files, --set: lowest precedence first
  std::string preset_workload;       // from a --config file's [preset] table, when --plugin is not given
};

/// Reads the preset (when there is one), every --config file and every --set argument into layers.
Expected<RunLayers> read_layers(const CliOptions& options, const PresetInfo* preset);

/// The workload's keys, and the runner's when it measures. A workload may declare a runner.* key itself to give
/// it another default (a collective sweep wants fewer samples per size than a kernel).
std::vector<ParamSpec> schema_for(const WorkloadInfo& workload);

/// One-letter options (-b 8) as config entries of the workload key with that alias; a usage failure lists the
/// workload's aliases when a letter is not one of them.
Expected<std::vector<ConfigEntry>> alias_entries(const CliOptions& options, const WorkloadInfo& workload);

}  // namespace dgx
