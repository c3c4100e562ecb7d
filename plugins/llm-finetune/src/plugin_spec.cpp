#include "plugin_spec.hpp"

#include "finetune_workload.hpp"
#include "measure_mode.hpp"
#include "params.hpp"
#include "presets.hpp"

namespace dgx::plugins::llm_finetune {

dgx::sdk::PluginSpec make_plugin_spec() {
  dgx::sdk::PluginSpec spec{.name = "llm-finetune",
                            .version = "1.0.0",
                            .vendor = "dgxhost",
                            .description = "LLM fine-tuning: SFT and LoRA compared in step time, tokens/s, MFU, hours "
                                           "and cost of a data set, projected from a calibrated performance model, "
                                           "and an explorer of method, GPU count, precision and parallel layout"};
  spec.add_workload<FinetuneWorkload>({
      .name = kWorkloadName,
      .kind = dgx::sdk::Kind::finetune,
      .summary = "Projects fine-tuning a data set with SFT or LoRA (time, throughput, MFU, cost; LoRA MFU counts the "
                 "executed FLOPs: frozen forward and dgrad GEMMs, attention, adapters) and explores method, GPU "
                 "count, precision and layout",
      // FP8 covers both E4M3 (forward) and E5M2 (gradients), as Transformer Engine's hybrid recipe uses them.
      .precisions = {DGX_PRECISION_BF16, DGX_PRECISION_FP8_E4M3, DGX_PRECISION_FP8_E5M2, DGX_PRECISION_MXFP8,
                     DGX_PRECISION_NVFP4},
      .params = finetune_params(),
      .modes = {dgx::sdk::Mode::measure, dgx::sdk::Mode::project, dgx::sdk::Mode::explore},
      .can_measure = [](dgx::sdk::Host&) { require_layer_probe(); },
  });
  spec.presets = embedded_presets();
  return spec;
}

}  // namespace dgx::plugins::llm_finetune
