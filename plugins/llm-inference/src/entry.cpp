// The plugin's one exported symbol (dgx_plugin_entry). Everything else lives in the dgx_llm_inference library, which
// the unit tests link directly.
#include <dgx/sdk.hpp>

#include "plugin_spec.hpp"

namespace {
dgx::sdk::PluginSpec make_plugin() { return dgx::plugins::llm_inference::make_plugin_spec(); }
}  // namespace

DGX_PLUGIN(make_plugin)
