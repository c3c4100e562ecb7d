// The llm-pretrain plugin as the SDK describes it: metadata, the workload (kind, precisions, parameter schema,
// modes) and the embedded presets. entry.cpp exports it.
#pragma once

#include <dgx/sdk/plugin.hpp>

namespace dgx::pretrain {

[[nodiscard]] dgx::sdk::PluginSpec make_plugin_spec();

}  // namespace dgx::pretrain
