// The workload's configuration, read from the host and checked value by value. Whether a layout is valid for
// the model and system (and fits in memory) is the performance model's question, asked in project mode.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <dgx/sdk/host.hpp>

#include "dgx/llm/layout.hpp"
#include "dgx/llm/precision.hpp"

namespace dgx::plugins::llm_pretrain {

struct PretrainSettings {
  std::string model;
  std::string system;
  bool system_configured = false;       ///< a preset, file or --set named the system (else the workload's default)
  std::vector<std::string> frameworks;  ///< software-release profiles; empty: the newest
  int gpus = 0;
  std::vector<llm::Precision> precisions;
  llm::TrainConfig train;  ///< precision = precisions.front(); seq_len 0: the model's default

  std::string provider;                    ///< empty: the catalog's default price for the system
  std::optional<double> usd_per_gpu_hour;  ///< overrides the catalog

  std::vector<int> explore_gpus;  ///< empty: powers of two from gpus_min to gpus_max
  int gpus_min = 1;
  int gpus_max = 16384;
  int gbs_per_gpu = 0;  ///< 0: train.gbs at every GPU count
  double budget_slack = 0.05;
  std::optional<double> deadline_days;
};

/// Reads every key of params.hpp. Throws dgx::sdk::InvalidArgument naming the key and the value when one is
/// out of range (a count below 1, gpus_min above gpus_max, a negative slack, ...).
[[nodiscard]] PretrainSettings read_settings(const dgx::sdk::Host& host);

}  // namespace dgx::plugins::llm_pretrain
