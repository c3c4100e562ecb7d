#include "plugin_spec.hpp"

#include "decode_workload.hpp"
#include "inference_workload.hpp"
#include "measure_mode.hpp"
#include "params.hpp"
#include "presets.hpp"

namespace dgx::plugins::llm_inference {

dgx::sdk::PluginSpec make_plugin_spec() {
  dgx::sdk::PluginSpec spec{.name = "llm-inference",
                            .version = "1.0.0",
                            .vendor = "dgxhost",
                            .description = "LLM serving: time to first token, time per output token, throughput per "
                                           "GPU and per user, bandwidth utilisation and cost per million tokens, "
                                           "projected from a calibrated serving model or measured on a GPU, and an "
                                           "explorer of GPUs per replica, precision and concurrency"};
  spec.add_workload<InferenceWorkload>({
      .name = kWorkloadName,
      .kind = dgx::sdk::Kind::inference,
      .summary = "Projects LLM serving (TTFT, TPOT, tokens/s per GPU and per user, MBU, $/M tokens) and explores "
                 "replica layout, precision and concurrency; --describe's help lines define every metric",
      .precisions = {DGX_PRECISION_BF16, DGX_PRECISION_FP8_E4M3, DGX_PRECISION_NVFP4, DGX_PRECISION_MXFP8},
      .params = inference_params(),
      .modes = {dgx::sdk::Mode::measure, dgx::sdk::Mode::project, dgx::sdk::Mode::explore},
      .can_measure = [](dgx::sdk::Host& host) { require_serve_probe(host); },
  });
  spec.add_workload<DecodeWorkload>({
      .name = kDecodeWorkloadName,
      .kind = dgx::sdk::Kind::inference,
      .summary = "Measures a whole model's decode loop on this GPU (CUDA graphs, paged KV cache): TPOT, tokens/s and "
                 "MBU per batch size",
      .precisions = {DGX_PRECISION_BF16, DGX_PRECISION_FP8_E4M3},
      .params = decode_params(),
      .modes = {dgx::sdk::Mode::measure},
      .can_measure = [](dgx::sdk::Host&) { require_decode_runner(); },
  });
  spec.presets = embedded_presets();
  return spec;
}

}  // namespace dgx::plugins::llm_inference
