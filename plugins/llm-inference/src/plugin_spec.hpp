// The llm-inference plugin as the SDK describes it: metadata, its two workloads (llm-inference: project, explore and
// measure; llm-decode: measure) and the embedded presets. entry.cpp exports it.
#pragma once

#include <dgx/sdk/plugin.hpp>

namespace dgx::plugins::llm_inference {

[[nodiscard]] dgx::sdk::PluginSpec make_plugin_spec();

}  // namespace dgx::plugins::llm_inference
