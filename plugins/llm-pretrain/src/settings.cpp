#include "settings.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "format.hpp"
#include "params.hpp"

namespace dgx::plugins::llm_pretrain {

namespace {

using dgx::sdk::InvalidArgument;

/// An integer key that must be at least `min` and fit an int.
int bounded(const char* key, std::int64_t value, std::int64_t min) {
  if (value < min) {
    throw InvalidArgument(std::string(key) + " must be at least " + std::to_string(min) + ", got " +
                          std::to_string(value));
  }
  if (value > std::numeric_limits<int>::max()) {
    throw InvalidArgument(std::string(key) + " " + std::to_string(value) + " is too large");
  }
  return static_cast<int>(value);
}

int read_int(const dgx::sdk::Host& host, const char* key, std::int64_t min) {
  return bounded(key, host.get_int(key), min);
}

std::vector<llm::Precision> read_precisions(const dgx::sdk::Host& host) {
  std::vector<llm::Precision> out;
  for (const std::string& text : host.get_string_list(key::precision)) {
    const auto precision = llm::parse_precision(text);
    if (!precision) {
      throw InvalidArgument(std::string(key::precision) + ": '" + text + "' is not one of bf16, fp8, mxfp8, nvfp4");
    }
    bool seen = false;
    for (const llm::Precision p : out) {
      seen = seen || p == *precision;
    }
    if (!seen) {
      out.push_back(*precision);
    }
  }
  if (out.empty()) {
    throw InvalidArgument(std::string(key::precision) + " must name at least one precision");
  }
  return out;
}

llm::AttentionFlops read_flops_convention(const dgx::sdk::Host& host) {
  const std::string text = host.get_string(key::flops_convention);
  if (text == "full") {
    return llm::AttentionFlops::full;
  }
  if (text == "causal") {
    return llm::AttentionFlops::causal;
  }
  throw InvalidArgument(std::string(key::flops_convention) + ": '" + text + "' is not one of full, causal");
}

llm::TrainConfig read_train(const dgx::sdk::Host& host, llm::Precision precision) {
  llm::TrainConfig t;
  t.precision = precision;
  t.layout = llm::Layout{.tp = read_int(host, key::tp, 1),
                         .pp = read_int(host, key::pp, 1),
                         .cp = read_int(host, key::cp, 1),
                         .vp = read_int(host, key::vp, 1),
                         .ep = read_int(host, key::ep, 1)};
  t.mbs = read_int(host, key::mbs, 1);
  t.gbs = read_int(host, key::gbs, 1);
  t.seq_len = read_int(host, key::seq_len, 0);
  t.tokens = host.get_float(key::tokens);
  if (!(t.tokens > 0) || !std::isfinite(t.tokens)) {
    throw InvalidArgument(std::string(key::tokens) + " must be a positive number of tokens, got " + fixed(t.tokens, 0));
  }
  const std::string recompute = host.get_string(key::recompute);
  const auto parsed = llm::parse_recompute(recompute);
  if (!parsed) {
    throw InvalidArgument(std::string(key::recompute) + ": '" + recompute + "' is not one of none, selective, full");
  }
  t.recompute = *parsed;
  t.distributed_optimizer = host.get_bool(key::distributed_optimizer);
  t.fsdp = host.get_bool(key::fsdp);
  t.offload_layers = read_int(host, key::offload_layers, llm::kAutoOffload);
  const std::string split = host.get_string(key::pipeline_split);
  const auto parsed_split = llm::parse_pipeline_split(split);
  if (!parsed_split) {
    throw InvalidArgument(std::string(key::pipeline_split) + ": '" + split +
                          "' is not one of auto, even, uneven, embedding-loss, custom");
  }
  t.pipeline_split = *parsed_split;
  t.flops_convention = read_flops_convention(host);
  return t;
}

void read_cost(const dgx::sdk::Host& host, PretrainSettings& s) {
  s.provider = host.get_string(key::provider);
  s.usd_per_gpu_hour = host.find_float(key::usd_per_gpu_hour);
  if (s.usd_per_gpu_hour && !(*s.usd_per_gpu_hour > 0)) {
    throw InvalidArgument(std::string(key::usd_per_gpu_hour) + " must be a positive price, got " +
                          fixed(*s.usd_per_gpu_hour, 2));
  }
}

void read_explore(const dgx::sdk::Host& host, PretrainSettings& s) {
  for (const std::int64_t g : host.get_int_list(key::explore_gpus)) {
    s.explore_gpus.push_back(bounded(key::explore_gpus, g, 1));
  }
  s.gpus_min = read_int(host, key::gpus_min, 1);
  s.gpus_max = read_int(host, key::gpus_max, 1);
  if (s.gpus_min > s.gpus_max) {
    throw InvalidArgument(std::string(key::gpus_min) + " " + std::to_string(s.gpus_min) + " exceeds " + key::gpus_max +
                          " " + std::to_string(s.gpus_max));
  }
  s.gbs_per_gpu = read_int(host, key::gbs_per_gpu, 0);
  s.budget_slack = host.get_float(key::budget_slack);
  if (!(s.budget_slack >= 0) || !std::isfinite(s.budget_slack)) {
    throw InvalidArgument(std::string(key::budget_slack) + " must be a fraction >= 0 (0.05 is +5%), got " +
                          fixed(s.budget_slack, 3));
  }
  s.deadline_days = host.find_float(key::deadline_days);
  if (s.deadline_days && !(*s.deadline_days > 0)) {
    throw InvalidArgument(std::string(key::deadline_days) + " must be a positive number of days, got " +
                          fixed(*s.deadline_days, 1));
  }
}

}  // namespace

PretrainSettings read_settings(const dgx::sdk::Host& host) {
  PretrainSettings s;
  s.model = host.get_string(key::model);
  s.system = host.get_string(key::system);
  s.system_configured = host.is_set(key::system);
  for (const std::string& name : host.get_string_list(key::framework)) {
    if (std::find(s.frameworks.begin(), s.frameworks.end(), name) == s.frameworks.end()) {
      s.frameworks.push_back(name);
    }
  }
  s.gpus = read_int(host, key::gpus, 1);
  s.precisions = read_precisions(host);
  s.train = read_train(host, s.precisions.front());
  read_cost(host, s);
  read_explore(host, s);
  return s;
}

}  // namespace dgx::plugins::llm_pretrain
