// The comm plugin: one workload per collective (all_reduce, all_gather, reduce_scatter, alltoall, broadcast,
// reduce, sendrecv) and `comm`, which runs them in turn. nccl-tests' conventions throughout, so numbers compare
// 1:1; NCCL on GPUs, the host's MPI on host buffers where there are none.
#include <dgx/sdk.hpp>

#include "dgx/catalog/host_search_dirs.hpp"
#include "dgx/log_import/formats.hpp"

#include "comm_workload.hpp"

namespace {

using dgx::plugins::comm::Collective;

using dgx::sdk::ChartSpec;
using dgx::sdk::MetricSpec;

// What a collective's rows mean, in nccl-tests' terms (the same for every collective workload).
std::vector<MetricSpec> comm_metrics() {
  return {MetricSpec::neutral("size", "B", "message size (nccl-tests' size)"),
          MetricSpec::neutral("count", "count", "elements per rank"),
          MetricSpec::lower("time", "s", "time per operation: median of the samples per rank, averaged over ranks"),
          MetricSpec::lower("time.rank_min", "s", "the fastest rank's time"),
          MetricSpec::lower("time.rank_max", "s", "the slowest rank's time"),
          MetricSpec::higher("algbw", "GB/s", "algorithm bandwidth: size / time"),
          MetricSpec::higher("busbw", "GB/s",
                             "bus bandwidth: algbw x 2(n-1)/n for all_reduce, (n-1)/n for all_gather, reduce_scatter "
                             "and alltoall, 1 otherwise (nccl-tests)"),
          MetricSpec::higher("busbw.peak", "%", "busbw as a percent of the link's peak per direction"),
          MetricSpec::lower("wrong", "count", "elements the check found wrong, over all ranks")};
}

// Bus bandwidth against size, a line per collective and placement; with one rank nothing crosses a bus (every busbw
// is 0), and the algorithm bandwidth is drawn instead.
std::vector<ChartSpec> comm_charts() {
  const std::string series = "comm.collective|workload,comm.placement";
  return {ChartSpec::lines("Bus bandwidth against message size", "size", "busbw")
              .by(series)
              .log_x()
              .only(dgx::sdk::ResultMode::measured)
              .peak("busbw.peak", "link peak (per direction)")
              .with_caption("Measured. nccl-tests' bus bandwidth: algbw x 2(n-1)/n for all_reduce, (n-1)/n for "
                            "all_gather, reduce_scatter and alltoall, 1 otherwise."),
          ChartSpec::lines("Algorithm bandwidth against message size", "size", "algbw")
              .by(series)
              .log_x()
              .only(dgx::sdk::ResultMode::measured)
              .alternative()
              .with_caption("Measured. algbw = size / time: with one rank no data crosses a bus, so busbw is 0.")};
}

dgx::sdk::WorkloadSpec spec_for(std::string name, std::string summary, const std::vector<Collective>& collectives) {
  dgx::sdk::WorkloadSpec spec{
      .name = std::move(name),
      .kind = dgx::sdk::Kind::comm,
      .summary = std::move(summary),
      .precisions = {DGX_PRECISION_FP32, DGX_PRECISION_FP16, DGX_PRECISION_BF16, DGX_PRECISION_FP8_E4M3,
                     DGX_PRECISION_FP8_E5M2},
      .params = dgx::plugins::comm::comm_params(collectives.empty()),
      .modes = {dgx::sdk::Mode::measure},
      .metrics = comm_metrics(),
      // A series is one collective, element type, reduction, root, placement, transport, rank count and message
      // size; the sweep's range, the check and the warm-up are context.
      .identity_keys = {"comm.collective", "comm.dtype", "comm.op", "comm.root", "comm.placement", "transport",
                        "world_size", "size"},
      .charts = comm_charts(),
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
  plugin.formats = dgx::logs::collective_formats();  // nccl-tests' own output, for dgxhost import and verdict
  return plugin;
}

}  // namespace

DGX_PLUGIN(make_plugin)
