// A workload preset (configs/workloads/<name>.toml): the default configuration of an LLM training workload
// (llm-pretrain, llm-finetune) for one model, which the host reads (its [preset] table) and the plugin can fall
// back on (embedded copy).
//
// Keys (inside [preset], as the files write them, or at the top level): workload, summary, model, system,
// precision (array; project uses the first), gpus, train.{tokens (optional: pretraining), seq_len, mbs, gbs,
// recompute}, parallel.{tp, pp, cp, vp, ep}, explore.{gpus_min, gpus_max, gbs_per_gpu (0: keep train.gbs fixed)}.
// A workload's own keys (finetune.*) are the plugin's to read.
#pragma once

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/expected.hpp"
#include "dgx/llm/explorer.hpp"
#include "dgx/llm/layout.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace dgx::llm {

struct WorkloadPreset {
  std::string name;      ///< file stem, e.g. "llama70b"
  std::string workload;  ///< "llm-pretrain"
  std::string summary;
  std::string model;
  std::string system;
  std::vector<Precision> precisions;
  int gpus = 0;       ///< for --mode project
  TrainConfig train;  ///< precision = precisions.front()
  int explore_gpus_min = 1;
  int explore_gpus_max = 16384;
  BatchRule explore_batch;  ///< fixed train.gbs, or gbs_per_gpu × GPUs
};

[[nodiscard]] Expected<WorkloadPreset> parse_workload_preset(std::string_view toml_text, std::string_view file);
/// An embedded preset by name ("llama70b").
[[nodiscard]] Expected<WorkloadPreset> find_workload_preset(std::string_view name);
/// Names of the embedded presets, sorted.
[[nodiscard]] std::vector<std::string> workload_preset_names();

/// The [preset] table of any workload's preset file (llm-pretrain's or another's): the workload it runs, its summary.
struct PresetHeader {
  std::string workload;
  std::string summary;
};
/// An embedded preset's header by name ("llama70b-serve").
[[nodiscard]] Expected<PresetHeader> find_preset_header(std::string_view name);

}  // namespace dgx::llm
