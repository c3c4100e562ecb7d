// A training configuration (parallel layout, batch, precision, recompute) and its validation.
//
// Rank order (Megatron-core RankGenerator default "tp-cp-ep-dp-pp"): TP innermost, then CP, then DP, PP
// outermost. Dense parameters are replicated over the cp·dp ranks that share a (tp rank, stage). Expert layers
// fold their own grid over the same tp·cp·dp ranks of a stage (Megatron-core "MoE parallel folding", expert order
// "etp-ep-edp-pp"): expert tensor parallelism (etp) innermost, EP groups of ep etp-strided ranks, and expert
// gradients reduced over the edp = tp·cp·dp / (etp·ep) ranks that hold the same expert shards. EP may so span TP
// ranks (Qwen3-235B at TP 2 EP 32 on 16 ranks per stage: etp 1). Sequence parallelism is always on when tp > 1
// (as in every NeMo recipe).
#pragma once

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/expected.hpp"
#include "dgx/llm/flops.hpp"
#include "dgx/llm/ops.hpp"
#include "dgx/llm/pipeline_split.hpp"

#include <cstdint>
#include <optional>
#include <string_view>

namespace dgx::llm {

/// Activation recomputation in the backward pass.
/// - none: every activation the backward needs is kept.
/// - selective: what the framework recomputes selectively. Megatron (--recompute-granularity selective) reruns the
///   submodules of TrainConfig::recompute_modules, by default the attention core (with flash attention that only
///   saves the core's output and softmax statistics and costs one more attention forward); torchtitan's per-op
///   policy is the framework's own (Software::selective_policy).
/// - full: only each layer's input is kept and the whole layer forward (with its TP communication) is rerun.
enum class Recompute : std::uint8_t { none, selective, full };

inline constexpr Recompute kAllRecomputes[] = {Recompute::none, Recompute::selective, Recompute::full};

[[nodiscard]] std::string_view to_string(Recompute recompute);
[[nodiscard]] std::optional<Recompute> parse_recompute(std::string_view text);

/// The submodules Megatron's selective recompute reruns (TransformerConfig.recompute_modules), one bit each:
/// core_attn the attention core; mla_up_proj MLA's up projections and rotary (their q, k, v outputs are not kept);
/// moe_act the experts' activation function (its output, the fc2 input, is not kept); layernorm both norms (their
/// outputs, the GEMM inputs, are not kept); mlp the MLP of dense layers (only its input is kept); moe the whole MoE
/// block of MoE layers (only its input is kept); shared_experts the shared experts' MLP.
enum class RecomputeModule : std::uint8_t { core_attn, mla_up_proj, moe_act, layernorm, mlp, moe, shared_experts };

inline constexpr RecomputeModule kAllRecomputeModules[] = {RecomputeModule::core_attn,     RecomputeModule::mla_up_proj,
                                                           RecomputeModule::moe_act,       RecomputeModule::layernorm,
                                                           RecomputeModule::mlp,           RecomputeModule::moe,
                                                           RecomputeModule::shared_experts};

[[nodiscard]] std::string_view to_string(RecomputeModule module);
[[nodiscard]] std::optional<RecomputeModule> parse_recompute_module(std::string_view text);

/// A set of RecomputeModule bits.
using RecomputeModules = std::uint8_t;
[[nodiscard]] constexpr RecomputeModules module_bit(RecomputeModule module) {
  return static_cast<RecomputeModules>(1U << static_cast<unsigned>(module));
}
[[nodiscard]] constexpr bool has_module(RecomputeModules set, RecomputeModule module) {
  return (set & module_bit(module)) != 0;
}
/// Megatron's default when recompute_modules is not given: the attention core.
inline constexpr RecomputeModules kDefaultRecomputeModules = module_bit(RecomputeModule::core_attn);
/// "core_attn, mlp" for messages.
[[nodiscard]] std::string modules_label(RecomputeModules modules);

/// A set of GraphScope bits (ops.hpp): the decoder submodules a recipe captures in CUDA graphs (Megatron
/// cuda_graph_impl "transformer_engine" with cuda_graph_scope, e.g. attn, moe_router, moe_preprocess); 0: eager.
using GraphScopes = std::uint8_t;
inline constexpr GraphScope kCapturableScopes[] = {GraphScope::attn, GraphScope::mlp, GraphScope::moe_router,
                                                   GraphScope::moe_preprocess};
[[nodiscard]] constexpr GraphScopes scope_bit(GraphScope scope) {
  return static_cast<GraphScopes>(1U << static_cast<unsigned>(scope));
}
[[nodiscard]] constexpr bool has_scope(GraphScopes set, GraphScope scope) {
  return scope != GraphScope::none && (set & scope_bit(scope)) != 0;
}
[[nodiscard]] std::string_view to_string(GraphScope scope);
/// "attn", "mlp", "moe_router", "moe_preprocess" (Megatron's names); "none" is not a scope that can be captured.
[[nodiscard]] std::optional<GraphScope> parse_graph_scope(std::string_view text);
/// "attn, moe_router" for messages; "none" for the empty set.
[[nodiscard]] std::string scopes_label(GraphScopes scopes);

struct Layout {
  int tp = 1;  ///< tensor parallel (with sequence parallelism)
  int pp = 1;  ///< pipeline stages
  int cp = 1;  ///< context parallel (ring attention over the sequence)
  int vp = 1;  ///< virtual pipeline chunks per stage (interleaved 1F1B when > 1)
  int ep = 1;  ///< expert parallel (MoE only), folded over tp·cp·dp
  /// Expert tensor parallel (MoE only; Megatron's expert_tensor_parallel_size): each expert's GEMMs split over etp
  /// ranks. kAutoEtp: the widest the folding allows, at most tp: tp (Megatron's default) where ep·tp divides
  /// tp·cp·dp, else the largest divisor of tp that folds (NVIDIA's MoE recipes set 1). Resolved layouts hold the
  /// value used.
  int etp = 0;
};

/// Layout::etp: chosen by the folding rule.
inline constexpr int kAutoEtp = 0;

/// Megatron's MoE token dispatchers (moe_token_dispatcher_type alltoall; flex with a DeepEP / HybridEP backend).
enum class MoeDispatcher : std::uint8_t { alltoall, flex };
[[nodiscard]] std::string_view to_string(MoeDispatcher dispatcher);
[[nodiscard]] std::optional<MoeDispatcher> parse_moe_dispatcher(std::string_view text);

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
  /// With recompute == selective on a framework whose selective recompute is Megatron's: the submodules rerun.
  RecomputeModules recompute_modules = kDefaultRecomputeModules;
  /// Hide the EP all-to-all of one microbatch behind the compute of another (Megatron-core
  /// overlap_moe_expert_parallel_comm, the recipes' moe_a2a_overlap): needs a pipeline of one stage or interleaved.
  bool ep_overlap = false;
  /// The MoE token dispatcher: Megatron's flat all-to-all, or its flex dispatcher (DeepEP / HybridEP), which sends
  /// a token once per remote NVLink domain and fans it out there (communication.hpp flex_offdomain_share).
  MoeDispatcher moe_dispatcher = MoeDispatcher::alltoall;
  /// The submodules captured in CUDA graphs (the recipe's cuda_graph_scope): their kernels are replayed without
  /// host work, so they cannot leave the GPU waiting for the host (step_model.hpp, host-bound time).
  GraphScopes cuda_graphs = 0;
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
  int edp = 0;           ///< expert data-parallel replicas: tp·cp·dp / (etp·ep) (MoE; dp·cp for dense models)
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
