// The comm plugin: one workload per collective (all_reduce, all_gather, reduce_scatter, alltoall, broadcast,
// reduce, sendrecv) and `comm`, which runs them in turn. nccl-tests' conventions throughout, so numbers compare
// 1:1; NCCL on GPUs, the host's MPI on host buffers where there are none.
#include <dgx/sdk.hpp>

#include "dgx/catalog/host_search_dirs.hpp"

#include "comm_workload.hpp"

namespace {

using dgx::plugins::comm::Collective;

dgx::sdk::WorkloadSpec spec_for(std::string name, std::string summary, const std::vector<Collective>& collectives) {
  dgx::sdk::WorkloadSpec spec{
      .name = std::move(name),
      .kind = dgx::sdk::Kind::comm,
      .summary = std::move(summary),
      .precisions = {DGX_PRECISION_FP32, DGX_PRECISION_FP16, DGX_PRECISION_BF16, DGX_PRECISION_FP8_E4M3,
                     DGX_PRECISION_FP8_E5M2},
      .params = dgx::plugins::comm::comm_params(collectives.empty()),
      .modes = {dgx::sdk::Mode::measure},
  };
  spec.factory = [collectives](dgx::sdk::Host& host) -> std::unique_ptr<dgx::sdk::Workload> {
    return std::make_unique<dgx::plugins::comm::CommWorkload>(host, collectives);
  };
  spec.can_measure = dgx::plugins::comm::comm_can_measure;
  return spec;
}

dgx::sdk::PluginSpec make_plugin() {
  dgx::sdk::PluginSpec plugin{.name = "comm",
                              .version = "1.0.0",
                              .vendor = "dgxhost",
                              .description = "Collective communication benchmarks with nccl-tests' conventions"};
  for (const Collective c : dgx::plugins::comm::kAllCollectives) {
    const std::string name(dgx::plugins::comm::name(c));
    plugin.workloads.push_back(spec_for(name, "Sweep of " + name + " message sizes: time, algbw, busbw, check", {c}));
  }
  plugin.workloads.push_back(spec_for("comm", "Every collective in turn (comm.collectives)", {}));
  plugin.init = [](dgx::sdk::Host& host) { dgx::catalog::search_host_dirs(host); };  // a user's systems
  return plugin;
}

}  // namespace

DGX_PLUGIN(make_plugin)
