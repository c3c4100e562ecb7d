#include "plugin_spec.hpp"

#include "measure_mode.hpp"
#include "params.hpp"
#include "presets.hpp"
#include "pretrain_workload.hpp"

namespace dgx::pretrain {

dgx::sdk::PluginSpec make_plugin_spec() {
  dgx::sdk::PluginSpec spec{.name = "llm-pretrain",
                            .version = "1.0.0",
                            .vendor = "dgxhost",
                            .description = "LLM pretraining: step time, tokens/s, MFU, days and cost of a training "
                                           "run, projected from a calibrated performance model, and an explorer of "
                                           "GPU count, precision and parallel layout"};
  spec.add_workload<PretrainWorkload>({
      .name = kWorkloadName,
      .kind = dgx::sdk::Kind::pretrain,
      .summary = "Projects an LLM pretraining run (time, throughput, MFU, cost) and explores GPU count, precision "
                 "and parallel layout",
      // FP8 covers both E4M3 (forward) and E5M2 (gradients), as Transformer Engine's hybrid recipe uses them;
      // MXFP8 and NVFP4 are projected on systems with block-scaled formats (Blackwell).
      .precisions = {DGX_PRECISION_BF16, DGX_PRECISION_FP8_E4M3, DGX_PRECISION_FP8_E5M2, DGX_PRECISION_MXFP8,
                     DGX_PRECISION_NVFP4},
      .params = pretrain_params(),
      .modes = {dgx::sdk::Mode::measure, dgx::sdk::Mode::project, dgx::sdk::Mode::explore},
      .can_measure = [](dgx::sdk::Host&) { require_layer_probe(); },
  });
  spec.presets = embedded_presets();
  return spec;
}

}  // namespace dgx::pretrain
