// The configuration keys every LLM training workload shares (llm-pretrain, llm-finetune): what to train on which
// system, the parallel layout and batch, the price, and the explorer's range. One schema and one reader, so the
// keys mean the same in every plugin and a key added here (the framework release, a new layout dimension)
// reaches them all. Each plugin adds its own keys (train.tokens, finetune.*) around these.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <dgx/sdk/host.hpp>
#include <dgx/sdk/workload.hpp>

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/explorer.hpp"
#include "dgx/llm/layout.hpp"
#include "dgx/llm/workload/keys.hpp"

namespace dgx::llm::workload {

/// Config keys beyond those every LLM workload shares (keys.hpp). Renaming one breaks users' scripts and presets.
namespace key {
inline constexpr const char* framework = "framework";
inline constexpr const char* cp = "parallel.cp";
inline constexpr const char* vp = "parallel.vp";
inline constexpr const char* etp = "parallel.etp";
inline constexpr const char* ep_overlap = "parallel.ep_overlap";
inline constexpr const char* moe_dispatcher = "parallel.moe_dispatcher";
inline constexpr const char* fsdp = "parallel.fsdp";
inline constexpr const char* pipeline_split = "parallel.pipeline_split";
inline constexpr const char* mbs = "train.mbs";
inline constexpr const char* gbs = "train.gbs";
inline constexpr const char* seq_len = "train.seq_len";
inline constexpr const char* recompute = "train.recompute";
inline constexpr const char* recompute_modules = "train.recompute_modules";
inline constexpr const char* offload_layers = "train.offload_layers";
inline constexpr const char* distributed_optimizer = "train.distributed_optimizer";
inline constexpr const char* flops_convention = "train.flops_convention";
inline constexpr const char* explore_gpus = "explore.gpus";
inline constexpr const char* explore_etp = "explore.etp";
inline constexpr const char* gpus_min = "explore.gpus_min";
inline constexpr const char* gpus_max = "explore.gpus_max";
inline constexpr const char* gbs_per_gpu = "explore.gbs_per_gpu";
inline constexpr const char* budget_slack = "explore.budget_slack";
inline constexpr const char* budget_usd = "explore.budget_usd";
}  // namespace key

/// A workload's defaults for the shared keys (its default preset's values).
struct TrainingDefaults {
  std::string model = "llama3.1-8b";
  int gpus = 8;
  std::vector<std::string> precisions{"bf16", "fp8"};
  Layout layout;
  int mbs = 1;
  int gbs = 128;
  int seq_len = 0;  ///< 0: the model's default
  int gpus_min = 8;
  int gpus_max = 16384;
  int gbs_per_gpu = 16;
};

/// The shared keys with their defaults, units and help, in the order --describe lists them.
[[nodiscard]] std::vector<dgx::sdk::Param> training_params(const TrainingDefaults& defaults);

struct TrainingSettings {
  std::string model;
  std::string system;
  bool system_configured = false;       ///< a preset, file or --set named the system (else the workload's default)
  std::vector<std::string> frameworks;  ///< software-release profiles; empty: the newest
  int gpus = 0;
  std::vector<Precision> precisions;
  TrainConfig train;  ///< precision = precisions.front(); seq_len 0: the model's default

  std::string provider;                    ///< the first of providers; empty: the catalog's default price
  std::vector<std::string> providers;      ///< cost.provider: several are compared by explore (project: the first)
  std::optional<double> usd_per_gpu_hour;  ///< overrides the catalog

  std::vector<int> explore_gpus;  ///< empty: powers of two from gpus_min to gpus_max
  std::vector<int> explore_etp;   ///< MoE expert TP sizes to sweep; empty: 1, 2, 4, 8 within the NVLink domain
  int gpus_min = 1;
  int gpus_max = 16384;
  int gbs_per_gpu = 0;  ///< 0: train.gbs at every GPU count
  double budget_slack = 0.05;
  std::optional<double> budget_usd;  ///< explore.budget_usd: also recommend the fastest costing at most this
};

/// Reads every key of training_params. Throws dgx::sdk::InvalidArgument naming the key and the value when one
/// is out of range (a count below 1, gpus_min above gpus_max, a negative slack, an unknown precision, ...).
[[nodiscard]] TrainingSettings read_training_settings(const dgx::sdk::Host& host);

/// The explorer's space the shared keys describe: GPU counts (the list, or powers of two between the bounds),
/// precisions, the batch rule (explore.gbs_per_gpu, or train.gbs at every count), the sequence, the distributed
/// optimizer, FSDP, the pipeline split and the FLOP convention. The tokens to train are the workload's to set.
[[nodiscard]] ExploreSpace explore_space(const TrainingSettings& settings);

}  // namespace dgx::llm::workload
