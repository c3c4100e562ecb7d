// Plugin llm-layer: the transformer-layer measurement. Loading and init make no CUDA call; can_measure checks the
// configuration, then the device.
#include <dgx/sdk.hpp>

#include "dgx/catalog/host_search_dirs.hpp"

#include "dgx/llm/cuda/sdk_bridge.hpp"
#include "layer_config.hpp"
#include "layer_workload.hpp"

namespace {

dgx::sdk::PluginSpec make_plugin() {
  using namespace dgx::plugins::llm_layer;
  dgx::sdk::PluginSpec spec{.name = "llm-layer",
                            .version = "1.0.0",
                            .vendor = "dgxhost",
                            .description = "One transformer layer, forward + backward, measured op by op"};
  spec.add_workload<LayerWorkload>({
      .name = "llm-layer",
      .kind = dgx::sdk::Kind::micro,
      .summary = "One transformer layer's forward + backward at a layout's per-rank shapes: per-op times, "
                 "model TFLOP/s, peak memory",
      .precisions = {DGX_PRECISION_BF16, DGX_PRECISION_FP8_E4M3},
      .params = layer_params(),
      .modes = {dgx::sdk::Mode::measure},
      .can_measure =
          [](dgx::sdk::Host& host) {
            (void)read_layer_config(host);  // a config error first: exit 2, not 4
            dgx::llm::cuda::require_cuda_device();
          },
  });
  spec.presets = layer_presets();
  spec.init = [](dgx::sdk::Host& host) { dgx::catalog::search_host_dirs(host); };  // a user's systems
  return spec;
}

}  // namespace

DGX_PLUGIN(make_plugin)
