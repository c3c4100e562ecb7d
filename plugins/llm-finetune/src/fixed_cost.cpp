#include "fixed_cost.hpp"

#include <algorithm>
#include <cmath>

#include <dgx/sdk/error.hpp>
#include <dgx/sdk/text.hpp>

#include "dgx/llm/flops.hpp"
#include "params.hpp"

namespace dgx::plugins::llm_finetune {

namespace {

namespace text = dgx::sdk::text;

constexpr double kBf16Bytes = 2;        // the base checkpoint and the saved weights are BF16
constexpr double kOptimizerBytes = 12;  // FP32 master weights and Adam's two moments, per trainable parameter

double read_minutes(const dgx::sdk::Host& host, const char* name) {
  const double value = host.get_float(name);
  if (!(value >= 0) || !std::isfinite(value)) {
    throw dgx::sdk::InvalidArgument(std::string(name) + " must be a number of minutes >= 0, got " +
                                    text::fixed(value, 2));
  }
  return value;
}

std::string minutes(double seconds) { return text::fixed(seconds / 60, seconds < 600 ? 1 : 0) + " min"; }

}  // namespace

FixedCostSettings read_fixed_cost(const dgx::sdk::Host& host) {
  FixedCostSettings s;
  s.startup_minutes = read_minutes(host, key::startup_minutes);
  s.eval_minutes = read_minutes(host, key::eval_minutes);
  s.min_billing_minutes = read_minutes(host, key::min_billing_minutes);
  s.storage_gb_per_s = host.get_float(key::storage_gb_s);
  if (!(s.storage_gb_per_s > 0) || !std::isfinite(s.storage_gb_per_s)) {
    throw dgx::sdk::InvalidArgument(std::string(key::storage_gb_s) + " must be a positive bandwidth in GB/s, got " +
                                    text::fixed(s.storage_gb_per_s, 2));
  }
  return s;
}

FixedCost fixed_cost(const FixedCostSettings& s, const llm::ModelConfig& model, const llm::FineTune& finetune,
                     const llm::TrainConfig& train, int data_parallel) {
  const double shards = std::max(1, train.layout.tp * train.layout.pp);
  const double base = llm::count_parameters(model).total / shards;  // the weights one GPU holds
  const double bytes_per_s = s.storage_gb_per_s * 1e9;
  const double trainable = llm::trainable_parameters(model, finetune) / shards;
  // SFT saves the weights and the optimizer state (sharded over the data-parallel ranks by the distributed
  // optimizer); LoRA the adapters and theirs.
  const double dp = std::max(1, data_parallel);
  const double saved = finetune.lora_method() ? trainable * (kBf16Bytes + kOptimizerBytes / dp)
                                              : base * (kBf16Bytes + kOptimizerBytes / dp);
  return FixedCost{.startup_s = 60 * s.startup_minutes,
                   .load_s = base * kBf16Bytes / bytes_per_s,
                   .save_s = saved / bytes_per_s,
                   .eval_s = 60 * s.eval_minutes};
}

BilledRun billed_run(double days, int gpus, const FixedCost& cost, const FixedCostSettings& s,
                     const std::optional<llm::Price>& price) {
  BilledRun out;
  out.days = days + cost.seconds() / 86400;
  out.gpu_hours = gpus * std::max(24 * out.days, s.min_billing_minutes / 60);
  out.cost = price ? out.gpu_hours * price->usd_per_gpu_hour : out.gpu_hours;
  return out;
}

void add_fixed_cost(llm::ExplorePoint& p, const FixedCost& cost, const FixedCostSettings& s,
                    const std::optional<llm::Price>& price) {
  const BilledRun run = billed_run(p.days, p.gpus, cost, s, price);
  p.days = run.days;
  p.gpu_hours = run.gpu_hours;
  p.cost = run.cost;
}

std::string fixed_cost_note(const FixedCostSettings& s, const FixedCost& c, const llm::ExplorePoint& p) {
  return "Every row's hours and cost include the job's fixed time, paid once per job by every GPU: at the "
         "recommendation (" +
         std::to_string(p.gpus) + " GPUs) " + minutes(c.seconds()) + " = start-up " + minutes(c.startup_s) + " (" +
         key::startup_minutes + ": scheduling, container start, NCCL initialisation) + loading the base checkpoint " +
         minutes(c.load_s) + " + saving the result " + minutes(c.save_s) + " (each GPU reads and writes its shard at " +
         text::fixed(s.storage_gb_per_s, 2) + " GB/s, " + key::storage_gb_s + ") + evaluation " + minutes(c.eval_s) +
         " (" + key::eval_minutes + "); each GPU is billed at least " + text::fixed(s.min_billing_minutes, 0) +
         " min (" + key::min_billing_minutes +
         "). Defaults are estimates (10 min, 0.25 GB/s per GPU: 2 GB/s per 8-GPU node of shared storage, 5 min, the "
         "1-minute minimum of per-second cloud billing); set 0 to see the steps alone. They make small jobs "
         "cheapest on few GPUs: the steps scale almost linearly, the fixed time does not.";
}

}  // namespace dgx::plugins::llm_finetune
