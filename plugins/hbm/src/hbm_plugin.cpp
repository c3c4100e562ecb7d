// Plugin hbm: one workload, the device-to-device copy. Loading and init make no CUDA call, so the plugin loads on a
// machine without a driver; can_measure checks the configuration, then the device.
#include <dgx/sdk.hpp>

#include "dgx/catalog/host_search_dirs.hpp"

#include "copy_workload.hpp"
#include "dgx/llm/cuda/sdk_bridge.hpp"

namespace {

using dgx::sdk::Param;

dgx::sdk::PluginSpec make_plugin() {
  dgx::sdk::PluginSpec spec{.name = "hbm",
                            .version = "1.0.0",
                            .vendor = "dgxhost",
                            .description = "GPU memory bandwidth: device-to-device copy"};
  spec.add_workload<dgx::plugins::hbm::CopyWorkload>({
      .name = "hbm_copy",
      .kind = dgx::sdk::Kind::micro,
      .summary = "Device-to-device copy of hbm.bytes: GB/s read + written, % of the HBM peak, sampled check",
      .params = {Param::bytes("hbm.bytes", std::int64_t{1} << 30, "bytes copied per iteration"),
                 Param::boolean("hbm.check", true, "check sampled bytes of the copy (untimed)"),
                 Param::integer("runner.batch", 10, "copies per timed sample"),
                 Param::integer("runner.min_samples", 10, "minimum timed samples")},
      .modes = {dgx::sdk::Mode::measure},
      .can_measure =
          [](dgx::sdk::Host& host) {
            (void)dgx::plugins::hbm::CopyWorkload::read_bytes(host);  // a config error first: exit 2, not 4
            dgx::llm::cuda::require_cuda_device();
          },
      .metrics = {dgx::sdk::MetricSpec::higher("bandwidth", "GB/s", "bytes read + written / the median time"),
                  dgx::sdk::MetricSpec::higher("peak_pct", "%", "bandwidth as a percent of the system's HBM peak")},
      .identity_keys = {"hbm.bytes"},
  });
  spec.init = [](dgx::sdk::Host& host) { dgx::catalog::search_host_dirs(host); };  // a user's systems
  return spec;
}

}  // namespace

DGX_PLUGIN(make_plugin)
