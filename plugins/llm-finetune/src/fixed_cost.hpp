// What a fine-tuning job costs beyond its steps: starting it (scheduling, container start, NCCL initialisation),
// loading the base checkpoint, saving the result, evaluating it, and the minimum time a cloud bills. A pretraining
// run spends these minutes in weeks; a fine-tuning job of minutes is dominated by them, and without them the
// explorer recommended 512 GPUs for a 2.6-minute job because steps alone scale almost linearly.
#pragma once

#include <optional>
#include <string>

#include <dgx/sdk/host.hpp>

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/explorer.hpp"
#include "dgx/llm/finetune.hpp"
#include "dgx/llm/layout.hpp"
#include "dgx/llm/step_model.hpp"

namespace dgx::plugins::llm_finetune {

/// The keys of the fixed cost (params.cpp documents each default and why).
struct FixedCostSettings {
  double startup_minutes = 10;     ///< finetune.startup_minutes: scheduling, container start, NCCL init
  double eval_minutes = 5;         ///< finetune.eval_minutes: evaluating the result once
  double storage_gb_per_s = 0.25;  ///< finetune.storage_gb_s: checkpoint read/write bandwidth per GPU
  double min_billing_minutes = 1;  ///< cost.min_billing_minutes: the least time each GPU is billed for
};

/// Reads the keys; throws dgx::sdk::InvalidArgument naming a negative or non-finite one (or a zero bandwidth).
[[nodiscard]] FixedCostSettings read_fixed_cost(const dgx::sdk::Host& host);

/// The fixed time of one job at one configuration, in seconds.
struct FixedCost {
  double startup_s = 0;
  double load_s = 0;  ///< each GPU reads the BF16 base weights it holds (1 / (TP x PP) of them)
  double save_s = 0;  ///< LoRA: the adapters; SFT: weights and the optimizer state, sharded
  double eval_s = 0;
  [[nodiscard]] double seconds() const { return startup_s + load_s + save_s + eval_s; }
};

/// At the layout of `train` with `dp` data-parallel ranks.
[[nodiscard]] FixedCost fixed_cost(const FixedCostSettings& settings, const llm::ModelConfig& model,
                                   const llm::FineTune& finetune, const llm::TrainConfig& train, int dp);

/// A run's time and what it bills, with the fixed time added.
struct BilledRun {
  double days = 0;
  double gpu_hours = 0;
  double cost = 0;  ///< USD, or GPU-hours without a price
};

/// `days` of steps on `gpus` GPUs plus `cost`, every GPU billed at least the minimum, priced at `price`.
[[nodiscard]] BilledRun billed_run(double days, int gpus, const FixedCost& cost, const FixedCostSettings& settings,
                                   const std::optional<llm::Price>& price);

/// Adds `cost` to the point's hours, bills every GPU at least the minimum, and prices the GPU-hours again (`price`
/// nullopt: cost stays GPU-hours). Step time and throughput are the steady state and do not change.
void add_fixed_cost(llm::ExplorePoint& point, const FixedCost& cost, const FixedCostSettings& settings,
                    const std::optional<llm::Price>& price);

/// The note: what a job's fixed time is made of at `point` (the recommendation), the keys and their defaults.
[[nodiscard]] std::string fixed_cost_note(const FixedCostSettings& settings, const FixedCost& cost,
                                          const llm::ExplorePoint& point);

}  // namespace dgx::plugins::llm_finetune
