// The projection of one training configuration: step time and its breakdown, throughput, MFU, memory, days,
// GPU-hours and cost.
//
// Composition. For each distinct ShapeKey the per-layer ops are timed once (OpTimeProvider) into a
// ShapeCost; a layout then only composes numbers: stage time per microbatch = layers × layer time (+ embedding
// on the first stage, LM head and loss on the last) + exposed pipeline send/recv; pipeline time = m × slowest
// stage + (p − 1)/v × mean stage (pipeline.hpp); then the exposed data-parallel gradient reduce-scatter and
// parameter all-gather (overlapped with the last microbatch's backward / first microbatch's forward except the
// last / first bucket; under FSDP per layer and microbatch) and the optimizer step, and any activation
// offloading the compute does not hide. Exposed communication: TP (1 − tp_overlap) of its time; CP the part of
// the K/V ring not hidden by the attention it overlaps; EP all-to-all fully; every overlapped part adds
// overlap_slowdown of its time (SystemProfile::software, set by the framework profile).
#pragma once

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/expected.hpp"
#include "dgx/llm/finetune.hpp"
#include "dgx/llm/layer_ops.hpp"
#include "dgx/llm/layout.hpp"
#include "dgx/llm/memory_model.hpp"
#include "dgx/llm/op_time.hpp"

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

namespace dgx::llm {

/// Where the step time goes; the parts add up to the step time.
struct StepBreakdown {
  double compute = 0;     ///< GEMMs, attention, memory-bound ops (incl. recompute) of the slowest stage
  double tp_comm = 0;     ///< exposed TP/SP all-gather / reduce-scatter
  double cp_comm = 0;     ///< exposed CP K/V ring exchange
  double ep_comm = 0;     ///< exposed EP all-to-all and expert-TP collectives
  double pp_comm = 0;     ///< exposed pipeline send/recv
  double bubble = 0;      ///< pipeline warm-up / cool-down
  double dp_comm = 0;     ///< exposed gradient reduce-scatter + parameter all-gather
  double optimizer = 0;   ///< Adam step, grad-norm, zeroing, FP8 re-cast
  double stragglers = 0;  ///< the slowest GPU's extra time on the compute-paced part (stragglers.hpp)
  double offload = 0;     ///< exposed activation offloading to the host (train.offload_layers)
  double host = 0;        ///< the GPU waiting for the host: MoE layers whose eager host work exceeds their GPU work

  [[nodiscard]] double total() const {
    return compute + tp_comm + cp_comm + ep_comm + pp_comm + bubble + dp_comm + optimizer + stragglers + offload + host;
  }
};

/// Time of one pass of a chunk of ops, split into compute, exposed communication and host-bound time.
struct PassCost {
  double compute = 0, tp = 0, cp = 0, ep = 0;
  /// Host-bound time: the pass's eager host work beyond its GPU time, where a host synchronisation keeps the host
  /// from running ahead (MoE layers, Software::host_op_us).
  double host = 0;
  [[nodiscard]] double total() const { return compute + tp + cp + ep + host; }
};

struct ChunkCost {
  PassCost forward, backward;
  [[nodiscard]] double total() const { return forward.total() + backward.total(); }
};

/// A ShapeKey packed into two words, the key of StepModel's shape cache.
struct PackedShape {
  std::uint64_t first = 0, second = 0;
  bool operator==(const PackedShape&) const = default;
};
struct PackedShapeHash {
  std::size_t operator()(const PackedShape& p) const noexcept {
    return static_cast<std::size_t>(p.first * 0x9E3779B97F4A7C15ULL ^ (p.second + 0x632BE59BD9B4E019ULL));
  }
};

/// Per-shape costs, computed once per ShapeKey and reused across pp / vp / dp / GPU counts.
struct ShapeCost {
  ChunkCost layer;        ///< one decoder layer, one microbatch
  ChunkCost embedding;    ///< first-stage extras
  ChunkCost output;       ///< last-stage extras
  ChunkCost dense_layer;  ///< a leading dense layer of an MoE model (= layer otherwise)
  ChunkCost mtp;          ///< one multi-token-prediction module (last stage; zero for models without)
  ShapeMemory memory;     ///< the shape's per-layer parameters and activations (memory_model.hpp)
  int ops = 0;            ///< ops timed for this shape
  int measured_ops = 0;   ///< of those, timed by a measurement rather than the roofline
};

/// A price to cost a projection with.
struct Price {
  double usd_per_gpu_hour = 0;
  std::string label;  ///< e.g. "nebius on-demand 2.95 $/GPU-h (cheapest on-demand list price; 2025-26)"
};

struct Projection {
  ResolvedLayout layout;
  TrainConfig train;
  double step_time_s = 0;
  double tokens_per_s = 0;  ///< seq_len × gbs / step_time
  double tokens_per_s_per_gpu = 0;
  double model_flops_per_sequence = 0;  ///< flops.hpp, with train.flops_convention
  double model_tflops_per_gpu = 0;      ///< gbs × flops_per_seq / step_time / gpus / 1e12
  double mfu = 0;                       ///< model TFLOP/s / dense peak of the precision's GEMMs
  double peak_tflops = 0;               ///< the peak MFU is measured against
  MemoryBreakdown memory;               ///< the GPU holding the most (first or last stage)
  double days_to_train = 0;             ///< tokens / (tokens/s) / 86400
  double gpu_hours = 0;
  std::optional<double> cost_usd;  ///< gpu_hours × price, when a price was given
  std::string price_label;         ///< which price, or why there is none
  StepBreakdown breakdown;
  std::string provenance;  ///< "projected: <model version>, system <name>, op times <sources>"
};

/// Whether project() refuses a configuration that does not fit in memory (enforce), or projects its time anyway
/// and leaves the verdict to the caller (report: Projection::memory still says what it needs), as calibration
/// does for a published run that fits through means the memory model does not describe.
enum class MemoryCheck : unsigned char { enforce, report };

/// Projects configurations of one model on one system. Not thread-safe (it caches per-shape costs).
class StepModel {
public:
  /// `provider` (optional) must outlive the model; by default a RooflineProvider of `system`.
  StepModel(ModelConfig model, SystemProfile system, const OpTimeProvider* provider = nullptr);

  /// The full projection, or the reason the configuration is invalid or does not fit in memory. With automatic
  /// offloading (TrainConfig::offload_layers = kAutoOffload) a layout that fits only by offloading activations
  /// is projected with the fewest layers that make it fit (Projection::train says how many).
  [[nodiscard]] Expected<Projection> project(int gpus, const TrainConfig& train,
                                             const std::optional<Price>& price = std::nullopt,
                                             MemoryCheck memory_check = MemoryCheck::enforce);

  /// Step time and breakdown of a resolved layout (no validity or memory check); the explorer's fast path.
  [[nodiscard]] StepBreakdown step_breakdown(const ResolvedLayout& resolved, const TrainConfig& train,
                                             const ShapeCost& cost) const;

  /// The cached cost of a shape (computed on first use).
  [[nodiscard]] const ShapeCost& shape_cost(const ShapeKey& key);

  [[nodiscard]] const ModelConfig& model() const { return model_; }
  [[nodiscard]] const SystemProfile& system() const { return system_; }

  /// Projects fine-tuning (finetune.hpp) instead of pretraining from now on, or pretraining again with nullopt:
  /// the method's op lists (finetune_ops.hpp), memory (finetune_memory.hpp), data-parallel traffic and
  /// optimizer step (LoRA: the adapters' only) and model FLOPs (as executed). Clears the shape cache.
  void set_finetune(std::optional<FineTune> finetune);
  [[nodiscard]] const std::optional<FineTune>& finetune() const { return finetune_; }

  /// Memory per GPU of a resolved configuration: memory_per_gpu, or finetune_memory_per_gpu when fine-tuning.
  /// `per_layer` is the shape's per-layer memory (ShapeCost::memory).
  [[nodiscard]] StageMemory memory(const TrainConfig& train, const ResolvedLayout& resolved,
                                   const ShapeMemory& per_layer) const;
  /// fitting_offload (memory_model.hpp) for this model's memory; nullopt under LoRA, whose frozen-base memory
  /// the offloading search does not describe.
  [[nodiscard]] std::optional<int> fitting_offload(const TrainConfig& train, const ResolvedLayout& resolved,
                                                   const ShapeMemory& per_layer) const;
  /// Model FLOPs of one sequence, the numerator of MFU: model_flops_per_sequence, or
  /// finetune_flops_per_sequence when fine-tuning.
  [[nodiscard]] double flops_per_sequence(int seq_len, AttentionFlops convention) const;

private:
  ModelConfig model_;
  SystemProfile system_;
  std::unique_ptr<RooflineProvider> own_provider_;
  const OpTimeProvider* provider_;
  std::unordered_map<PackedShape, ShapeCost, PackedShapeHash> cache_;
  std::optional<FineTune> finetune_;
};

/// Sums a chunk of ops into compute and exposed communication (the overlap rules above, with the software's
/// overlap fractions for the run's GEMM precision).
/// `graphs`: the CUDA-graph scopes of the run (their ops cost the host nothing). A chunk with MoE ops is host-bound
/// where its eager host work (Software::host_op_us per kernel) exceeds its GPU time: the dispatcher's host
/// synchronisation in every MoE layer's forward empties the launch queue, so the host cannot run ahead across
/// layers; PassCost::host holds the excess.
[[nodiscard]] ChunkCost cost_of(const OpList& ops, const OpTimeProvider& provider, const Software& software,
                                Precision precision, GraphScopes graphs = 0);

/// The convenience entry point: catalog names, the system as the framework release runs it, the default price of
/// the system.
struct ProjectionRequest {
  std::string model;
  std::string system;
  int gpus = 0;
  TrainConfig train;
  std::optional<std::string> price_provider = std::nullopt;  ///< nullopt: the catalog default for the system
  std::optional<std::string> framework = std::nullopt;       ///< release profile; nullopt: the newest
};

[[nodiscard]] Expected<Projection> project(const ProjectionRequest& request);

}  // namespace dgx::llm
