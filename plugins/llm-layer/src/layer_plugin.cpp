// Plugin llm-layer: the transformer-layer measurement. Loading and init make no CUDA call; can_measure checks the
// configuration, then the device.
#include <dgx/sdk.hpp>

#include "dgx/catalog/host_search_dirs.hpp"

#include "dgx/llm/cuda/sdk_bridge.hpp"
#include "dgx/llm/kernels/metrics.hpp"
#include "layer_config.hpp"
#include "layer_workload.hpp"

namespace {

// The layer's metrics (the shared ones of the metrics library) and the op rows' (table "llm-layer ops").
std::vector<dgx::sdk::MetricSpec> layer_metrics() {
  using dgx::sdk::MetricSpec;
  std::vector<MetricSpec> m = dgx::llm::kernels::layer_metric_specs("");
  m.insert(m.end(), {MetricSpec::lower("time", "s", "an op's time: device events around it, median of the steps"),
                     MetricSpec::higher("bandwidth", "GB/s", "a memory-bound op's bytes / its time"),
                     MetricSpec::higher("tflops", "TFLOP/s", "a GEMM's or attention's FLOPs / its time"),
                     MetricSpec::higher("peak_pct", "%", "TFLOP/s as a percent of the dense peak of its precision"),
                     MetricSpec::neutral("flops", "FLOP", "an op's FLOPs"),
                     MetricSpec::neutral("bytes", "B", "an op's bytes read and written")});
  return m;
}

// The op rows as bars, a colour per precision: time per op, and the compute ops' TFLOP/s against the dense peak.
std::vector<dgx::sdk::ChartSpec> layer_charts() {
  using dgx::sdk::ChartSpec;
  return {ChartSpec::bars("Time per op", "op", "time")
              .by("precision")
              .in_table("llm-layer ops")
              .in_unit("ms")
              .with_caption("One layer's forward and backward, op by op (measured, device events)."),
          ChartSpec::bars("TFLOP/s per op against the peak", "op", "tflops")
              .by("precision")
              .in_table("llm-layer ops")
              .peak("peak_pct", "dense peak")
              .with_caption("GEMMs and attention (measured) against the dense peak of the system profile "
                            "(reference).")};
}

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
      .metrics = layer_metrics(),
      .identity_keys = {"model",
                        "layer.hidden",
                        "layer.ffn",
                        "layer.heads",
                        "layer.kv_groups",
                        "layer.head_dim",
                        "layer.seq_len",
                        "layer.activation",
                        "layer.norm",
                        "layer.rope",
                        "layer.rope_theta",
                        "layer.experts",
                        "layer.top_k",
                        "layer.vocab",
                        "parallel.*",
                        "train.*",
                        "precision",
                        "fp8.*",
                        "op",
                        "shape"},
      .charts = layer_charts(),
  });
  spec.presets = layer_presets();
  spec.init = [](dgx::sdk::Host& host) { dgx::catalog::search_host_dirs(host); };  // a user's systems
  return spec;
}

}  // namespace

DGX_PLUGIN(make_plugin)
