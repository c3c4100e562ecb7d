// The plugin's one exported symbol (dgx_plugin_entry). Everything else lives in the dgx_llm_finetune library,
// which the unit tests link directly.
#include <dgx/sdk.hpp>

#include "plugin_spec.hpp"

DGX_PLUGIN(dgx::plugins::llm_finetune::make_plugin_spec)
