// The configuration schema of the llm-pretrain workload: the keys users' scripts and presets rely on
// (configs/workloads/*.toml uses them), with defaults equal to the llama8b preset so that
// `dgxhost --plugin llm-pretrain` alone projects Llama 3.1 8B on H100.
#pragma once

#include <vector>

#include <dgx/sdk/workload.hpp>

namespace dgx::plugins::llm_pretrain {

/// Config keys. Renaming one breaks users' scripts and presets.
namespace key {
inline constexpr const char* model = "model";
inline constexpr const char* system = "system";
inline constexpr const char* framework = "framework";
inline constexpr const char* gpus = "gpus";
inline constexpr const char* precision = "precision";
inline constexpr const char* tp = "parallel.tp";
inline constexpr const char* pp = "parallel.pp";
inline constexpr const char* cp = "parallel.cp";
inline constexpr const char* vp = "parallel.vp";
inline constexpr const char* ep = "parallel.ep";
inline constexpr const char* fsdp = "parallel.fsdp";
inline constexpr const char* pipeline_split = "parallel.pipeline_split";
inline constexpr const char* mbs = "train.mbs";
inline constexpr const char* gbs = "train.gbs";
inline constexpr const char* seq_len = "train.seq_len";
inline constexpr const char* tokens = "train.tokens";
inline constexpr const char* recompute = "train.recompute";
inline constexpr const char* offload_layers = "train.offload_layers";
inline constexpr const char* distributed_optimizer = "train.distributed_optimizer";
inline constexpr const char* flops_convention = "train.flops_convention";
inline constexpr const char* provider = "cost.provider";
inline constexpr const char* usd_per_gpu_hour = "cost.usd_per_gpu_hour";
inline constexpr const char* explore_gpus = "explore.gpus";
inline constexpr const char* gpus_min = "explore.gpus_min";
inline constexpr const char* gpus_max = "explore.gpus_max";
inline constexpr const char* gbs_per_gpu = "explore.gbs_per_gpu";
inline constexpr const char* budget_slack = "explore.budget_slack";
inline constexpr const char* deadline_days = "explore.deadline_days";
}  // namespace key

/// Every parameter of the workload, with its default, unit and help.
[[nodiscard]] std::vector<dgx::sdk::Param> pretrain_params();

}  // namespace dgx::plugins::llm_pretrain
