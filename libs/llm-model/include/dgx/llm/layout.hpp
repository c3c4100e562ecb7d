// A training configuration (parallel layout, batch, precision, recompute) and its validation.
//
// Rank order (Megatron-core RankGenerator default "tp-cp-ep-dp-pp"): TP innermost, then CP, then DP, PP
// outermost. Dense parameters are replicated over the cp·dp ranks that share a (tp rank, stage); expert layers
// use the expert order "tp-ep-edp-pp" over the same ranks: EP groups are ep consecutive tp-strided ranks of the
// cp·dp block and expert gradients are reduced over the edp = cp·dp/ep ranks that hold the same experts.
// Sequence parallelism is always on when tp > 1 (as in every NeMo recipe).
#pragma once

#include "dgx/llm/expected.hpp"
#include "dgx/llm/flops.hpp"
#include "dgx/llm/model_config.hpp"
#include "dgx/llm/pipeline_split.hpp"
#include "dgx/llm/precision.hpp"
#include "dgx/llm/system_profile.hpp"

#include <cstdint>
#include <optional>
#include <string_view>

namespace dgx::llm {

/// Activation recomputation in the backward pass.
/// - none: every activation the backward needs is kept.
/// - selective: the attention core is recomputed (Megatron --recompute-granularity selective); with flash
///   attention this only saves the core's output and softmax statistics and costs one more attention forward.
/// - full: only each layer's input is kept and the whole layer forward (with its TP communication) is rerun.
enum class Recompute : std::uint8_t { none, selective, full };

inline constexpr Recompute kAllRecomputes[] = {Recompute::none, Recompute::selective, Recompute::full};

[[nodiscard]] std::string_view to_string(Recompute recompute);
[[nodiscard]] std::optional<Recompute> parse_recompute(std::string_view text);

struct Layout {
  int tp = 1;  ///< tensor parallel (with sequence parallelism)
  int pp = 1;  ///< pipeline stages
  int cp = 1;  ///< context parallel (ring attention over the sequence)
  int vp = 1;  ///< virtual pipeline chunks per stage (interleaved 1F1B when > 1)
  int ep = 1;  ///< expert parallel (MoE only)
};

/// TrainConfig::offload_layers: offload only where a layout needs it to fit and the host link is fast.
inline constexpr int kAutoOffload = -1;

struct TrainConfig {
  Precision precision = Precision::bf16;
  Layout layout;
  int mbs = 1;           ///< micro-batch size (sequences)
  int gbs = 0;           ///< global batch size (sequences per optimizer step)
  int seq_len = 0;       ///< 0: the model's default
  double tokens = 1e12;  ///< tokens to train, for days / GPU-hours / cost
  Recompute recompute = Recompute::none;
  /// Megatron distributed optimizer (ZeRO-1): FP32 master weights and Adam moments sharded over the data
  /// parallel ranks; gradients reduce-scattered and parameters all-gathered instead of all-reduced.
  bool distributed_optimizer = true;
  /// Megatron FSDP (ZeRO-3, "optim_grads_params"): parameters, gradients and optimizer state sharded over the
  /// cp·dp ranks; each layer's parameters are all-gathered before its forward and its backward, its gradients
  /// reduce-scattered after its backward, overlapped with the neighbouring layers' compute. Replaces the
  /// distributed optimizer when set.
  bool fsdp = false;
  /// Activations of this many decoder layers per stage are offloaded to host memory during the forward and
  /// brought back for the backward (Megatron's cpu_offloading_num_layers; Grace systems use it through their
  /// NVLink-C2C link). 0: none; kAutoOffload: as many as a layout needs to fit, on a system whose host link can
  /// hide the transfers (memory_model.hpp fitting_offload), none elsewhere.
  int offload_layers = kAutoOffload;
  PipelineSplit pipeline_split = PipelineSplit::automatic;  ///< how layers are split over stages
  /// Multi-token-prediction modules trained with the model, on the last stage; -1: the model's (mtp_layers).
  int mtp_layers = -1;
  AttentionFlops flops_convention = AttentionFlops::full;  ///< for MFU and model TFLOP/s
};

/// A validated configuration with its derived sizes.
struct ResolvedLayout {
  Layout layout;
  int gpus = 0;
  int dp = 0;            ///< data-parallel replicas: gpus / (tp·pp·cp)
  int microbatches = 0;  ///< per pipeline per step: gbs / (dp·mbs)
  int seq_len = 0;
  StageLayers stages;
};

/// What one pipeline stage holds: its decoder layers (of which `leading_dense` are the dense layers an MoE model
/// starts with, all on the first stage), the embedding (first stage), the output layer and loss and the MTP
/// modules (last stage).
struct StageParts {
  int layers = 0;
  int leading_dense = 0;
  bool embedding = false;
  bool output = false;
  int mtp_layers = 0;
};

/// The parts of stage `stage` (0 = first; for pp > 2 any other index is a middle stage).
[[nodiscard]] StageParts stage_parts(const ModelConfig& model, const TrainConfig& train, const ResolvedLayout& resolved,
                                     int stage);

/// Checks a configuration against the model and system and derives dp, microbatches and the stage split.
/// Errors name the reason, e.g. "gpus 100 not divisible by tp×pp×cp = 32", "TP 16 exceeds the NVLink domain of
/// 8 on h100-sxm", "heads 64 not divisible by tp 3", "vp 5 requires layers/pp divisible by vp" (under the requested
/// pipeline_split), "gbs 100 is not divisible by dp×mbs = 64". Memory feasibility is decided by the memory model, not
/// here.
[[nodiscard]] Expected<ResolvedLayout> resolve_layout(const ModelConfig& model, const SystemProfile& system, int gpus,
                                                      const TrainConfig& train);

}  // namespace dgx::llm
