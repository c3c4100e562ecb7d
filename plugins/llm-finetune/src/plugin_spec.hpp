// The llm-finetune plugin as the SDK describes it: metadata, the workload (kind, precisions, parameter schema,
// modes) and the embedded presets. entry.cpp exports it.
#pragma once

#include <dgx/sdk/plugin.hpp>

namespace dgx::plugins::llm_finetune {

[[nodiscard]] dgx::sdk::PluginSpec make_plugin_spec();

}  // namespace dgx::plugins::llm_finetune
