#include "data_parallel.hpp"

#include "dgx/llm/communication.hpp"
#include "dgx/llm/flops.hpp"
#include "dgx/llm/memory_model.hpp"
#include "dgx/llm/model_constants.hpp"

#include <algorithm>
#include <cmath>

namespace dgx::llm::detail {

namespace {

/// Kernels of one optimizer step (multi-tensor Adam, grad norm, zeroing, FP8 re-cast: a handful of launches).
constexpr int kOptimizerKernels = 8;
using constants::kBf16;

/// Parameters of the first stage on one GPU, dense (replicated over cp·dp) and expert (over edp), and how many
/// bytes a gathered parameter takes on the wire (low-precision GEMM weights travel in their format).
struct StageParams {
  double dense = 0, expert = 0, linear = 0;
  double gather_bytes = kBf16;  ///< per parameter, averaged over the stage
};

StageParams stage_params(const ModelConfig& model, const SystemProfile& system, const ResolvedLayout& r,
                         const TrainConfig& train, const ShapeMemory& per_layer,
                         const std::optional<FineTune>& finetune) {
  const Layout& l = r.layout;
  const StageParts parts = stage_parts(model, train, r, 0);
  if (finetune && finetune->lora_method()) {  // the adapters of the stage's layers, in BF16
    return StageParams{.dense = parts.layers * adapter_parameters_per_gpu(model, finetune->lora, l.tp)};
  }
  const LayerParams& layer = per_layer.layer;
  const LayerParams& dense_layer = per_layer.dense_layer;
  const ParameterCount& count = per_layer.count;
  const int main_layers = parts.layers - parts.leading_dense + parts.mtp_layers;
  const double output = parts.output ? (model.tied_embeddings ? 0.0 : count.output_layer) / l.tp : 0.0;
  StageParams p{.dense = main_layers * layer.dense + parts.leading_dense * dense_layer.dense + count.embedding / l.tp +
                         output,
                .expert = main_layers * layer.expert,
                .linear = main_layers * layer.linear + parts.leading_dense * dense_layer.linear};
  const double linear_bytes =
      parameter_bytes(train.precision, system.software.low_precision_params, system.any_layout_fp8()).linear;
  p.gather_bytes = (p.linear * linear_bytes + (p.dense + p.expert - p.linear) * kBf16) / (p.dense + p.expert);
  return p;
}

/// Seconds of one collective kind over a stage's dense and expert parameters, in `pieces` equal messages.
struct GroupComm {
  const SystemProfile& system;
  const Layout& layout;
  int dense_ranks = 1;
  int expert_ranks = 1;

  [[nodiscard]] double operator()(const StageParams& p, Collective kind, double bytes_per_param, double pieces) const {
    const auto one = [&](double params, int ranks, int stride) {
      if (ranks <= 1 || params <= 0) {
        return 0.0;
      }
      const GroupPlacement placement = place_group(stride, ranks, system.nvlink_domain);
      return pieces * collective_seconds(system, kind, params * bytes_per_param / pieces, placement);
    };
    const int etp = layout.etp > 0 ? layout.etp : layout.tp;
    return one(p.dense, dense_ranks, layout.tp) + one(p.expert, expert_ranks, etp * layout.ep);
  }
};

double optimizer_seconds(const SystemProfile& system, const ResolvedLayout& r, const TrainConfig& train,
                         const StageParams& p, int dense_ranks, int expert_ranks) {
  const bool sharded = train.distributed_optimizer || train.fsdp;
  const double shard = sharded ? p.dense / dense_ranks + p.expert / std::max(1, expert_ranks) : p.dense + p.expert;
  const double local = train.fsdp ? shard : p.dense + p.expert;  // FSDP zeroes and re-casts only its shard
  const bool low_precision = casts_gemm_inputs(train.precision);
  const double bytes =
      shard * constants::kAdamBytesPerParam + local * constants::kZeroGradBytesPerParam +
      (low_precision ? p.linear * local / (p.dense + p.expert) * constants::kFp8RecastBytesPerParam : 0.0);
  // The global gradient norm is one tiny all-reduce over every GPU: tree latency, 2·log2(n) hops.
  const double norm_hops = 2.0 * std::ceil(std::log2(std::max(2, r.gpus)));
  const double hop_us = r.gpus > system.nvlink_domain ? system.efficiency.network_hop_latency_us
                                                      : system.efficiency.nvlink_hop_latency_us;
  return bytes / (system.efficiency.memory_bw * system.hbm_bytes_per_s()) +
         kOptimizerKernels * system.efficiency.kernel_overhead_us * 1e-6 + norm_hops * hop_us * 1e-6;
}

}  // namespace

double overlapped(double comm, double window, double unhidable, double slowdown) {
  const double exposed = std::min(comm, std::max(unhidable, comm - window));
  return exposed + slowdown * (comm - exposed);
}

DataParallelCost data_parallel(const ModelConfig& model, const SystemProfile& system, const ResolvedLayout& r,
                               const TrainConfig& train, const ChunkCost& stage, const ShapeMemory& per_layer,
                               const std::optional<FineTune>& finetune) {
  const Layout& l = r.layout;
  const StageParams p = stage_params(model, system, r, train, per_layer, finetune);
  const int dense_ranks = r.dp * l.cp;
  const int expert_ranks = expert_replicas(r);
  const GroupComm comm{.system = system, .layout = l, .dense_ranks = dense_ranks, .expert_ranks = expert_ranks};
  const double slowdown = system.software.overlap_slowdown;
  const double window_fwd = stage.forward.total();
  const double window_bwd = stage.backward.total();

  DataParallelCost out;
  out.optimizer = optimizer_seconds(system, r, train, p, dense_ranks, expert_ranks);
  const double grad_bytes = system.software.grad_reduce_bytes;
  if (train.fsdp) {
    const double units = std::max(1, r.stages.first);  // one gather / reduce-scatter per layer
    const double gather = comm(p, Collective::all_gather, p.gather_bytes, units);
    const double scatter = comm(p, Collective::reduce_scatter, grad_bytes, units);
    if (system.software.fsdp == FsdpKind::fsdp2 && l.pp > 1) {
      // FSDP2 under PP: gathered once, under the first microbatch's forward; reduced once, under the last one's
      // backward (the first gather and the last reduce-scatter exposed).
      out.comm = overlapped(gather, window_fwd, gather / units, slowdown) +
                 overlapped(scatter, window_bwd, scatter / units, slowdown);
      return out;
    }
    const double forward = overlapped(gather, window_fwd, gather / units, slowdown);
    const double backward = overlapped(gather + scatter, window_bwd, scatter / units, slowdown);
    out.comm = r.microbatches * (forward + backward);
    return out;
  }
  const double bucket = std::max(constants::kBucketMinParams, constants::kBucketParamsPerDpRank * dense_ranks);
  const double buckets = std::ceil(std::max(p.dense + p.expert, 1.0) / bucket);
  const Collective grad_kind = train.distributed_optimizer ? Collective::reduce_scatter : Collective::all_reduce;
  const double grads = comm(p, grad_kind, grad_bytes, buckets);
  out.comm = overlapped(grads, window_bwd, grads / buckets, slowdown);
  if (train.distributed_optimizer) {
    const double params = comm(p, Collective::all_gather, p.gather_bytes, buckets);
    out.comm += overlapped(params, window_fwd, params / buckets, slowdown);
  }
  return out;
}

double offload_seconds(const SystemProfile& system, const ResolvedLayout& r, const TrainConfig& train,
                       const ChunkCost& stage, const ShapeMemory& per_layer) {
  if (train.offload_layers <= 0) {
    return 0;
  }
  const double bytes = train.offload_layers * per_layer.activation;
  const double transfer = bytes / (system.host_link_gb_s * 1e9 * constants::kHostLinkEfficiency);
  const double slowdown = system.software.overlap_slowdown;
  return r.microbatches * (overlapped(transfer, stage.forward.total(), 0, slowdown) +
                           overlapped(transfer, stage.backward.total(), 0, slowdown));
}

}  // namespace dgx::llm::detail
