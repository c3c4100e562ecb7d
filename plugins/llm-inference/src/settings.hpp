// The workload's configuration, read from the host and checked value by value. Whether a configuration is valid for
// the model and system (layout, context, memory) is the serving model's question, asked in project and explore mode.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <dgx/sdk/host.hpp>

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/serve_config.hpp"
#include "dgx/llm/serve_explorer.hpp"

namespace dgx::plugins::llm_inference {

struct InferenceSettings {
  std::string model;
  std::string system;
  bool system_configured = false;  ///< a preset, file or --set named the system (else the workload's default)
  int gpus = 0;                    ///< the fleet
  double fleet_rate = 0;           ///< requests/s the fleet must carry (explore sizes it); 0: none
  std::vector<llm::Precision> precisions;
  bool precision_configured = false;  ///< a preset, file or --set named the precisions (else the model's default)
  bool checkpoint_precision = false;  ///< the precision is the model's checkpoint format, chosen by default
  std::optional<llm::Precision> kv_precision;  ///< nullopt: auto (kv_precision_for)
  llm::ServeConfig config;                     ///< precision = precisions.front(), kv precision resolved
  llm::ServeSlo slo;

  std::string provider;                    ///< empty: the catalog's default price for the system
  std::optional<double> usd_per_gpu_hour;  ///< overrides the catalog

  std::vector<int> explore_concurrency;  ///< empty: powers of two up to the most that fit, and offline
  bool explore_all_rows = false;         ///< every configuration as a row, not only the front
  bool explore_disaggregated = true;     ///< explore adds disaggregated deployments
  bool explore_speculative = true;       ///< explore sweeps with and without serve.speculative

  bool disaggregated = false;       ///< serve.mode = disaggregated (project)
  llm::ServeLayout prefill_layout;  ///< a prefill worker's layout
  int prefill_workers = 0, decode_workers = 0;
  std::string checkpoint;  ///< empty: the usual checkpoint of the model and precision

  /// The KV cache format of a weight precision: the configured one, or auto (FP8 with FP8 / FP4 weights, else BF16).
  [[nodiscard]] llm::Precision kv_precision_for(llm::Precision weights) const;
};

/// With no precision configured, a model whose checkpoint ships quantized is served in its own format (gpt-oss: mxfp4,
/// DeepSeek-V3: fp8-block) rather than the workload's bf16/fp8 default.
void default_to_checkpoint(InferenceSettings& settings, const llm::ModelConfig& model);

/// Reads every key of params.hpp. Throws dgx::sdk::InvalidArgument naming the key and the value when one is out of
/// range or not one of its choices.
[[nodiscard]] InferenceSettings read_settings(const dgx::sdk::Host& host);

}  // namespace dgx::plugins::llm_inference
