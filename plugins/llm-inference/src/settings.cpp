#include "settings.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>

#include <dgx/sdk/text.hpp>

#include "dgx/llm/serve_lengths.hpp"
#include "dgx/llm/serve_precision.hpp"
#include "dgx/llm/workload/catalog_lookup.hpp"
#include "dgx/llm/workload/keys.hpp"
#include "params.hpp"

namespace dgx::plugins::llm_inference {

namespace {

using dgx::sdk::InvalidArgument;
namespace text = dgx::sdk::text;
namespace workload = llm::workload;

double read_non_negative(const dgx::sdk::Host& host, const char* key, const char* what) {
  const double value = host.get_float(key);
  if (!(value >= 0) || !std::isfinite(value)) {
    throw InvalidArgument(std::string(key) + " must be " + what + ", got " + text::fixed(value, 3));
  }
  return value;
}

std::optional<llm::Precision> read_kv_precision(const dgx::sdk::Host& host) {
  const std::string text = host.get_string(key::kv_precision);
  if (text == "auto") {
    return std::nullopt;
  }
  const auto precision = llm::parse_precision(text);
  if (!precision || *precision == llm::Precision::mxfp8) {
    throw InvalidArgument(std::string(key::kv_precision) + ": '" + text + "' is not one of auto, bf16, fp8, nvfp4");
  }
  return precision;
}

template <typename Enum>
Enum read_choice(const dgx::sdk::Host& host, const char* key, std::optional<Enum> (*parse)(std::string_view),
                 const char* choices) {
  const std::string text = host.get_string(key);
  const auto value = parse(text);
  if (!value) {
    throw InvalidArgument(std::string(key) + ": '" + text + "' is not one of " + choices);
  }
  return *value;
}

void read_load(const dgx::sdk::Host& host, InferenceSettings& s) {
  llm::ServeConfig& c = s.config;
  const std::optional<double> rate = host.find_float(key::request_rate);
  if (rate && !(*rate > 0 && std::isfinite(*rate))) {
    throw InvalidArgument(std::string(key::request_rate) + " must be > 0 requests/s (an open-loop load), got " +
                          text::fixed(*rate, 3) + "; for a closed loop leave it unset and set " + key::concurrency);
  }
  c.request_rate = rate.value_or(0);
  s.fleet_rate = host.get_float(key::fleet_rate);
  if (!(s.fleet_rate >= 0)) {
    throw InvalidArgument(std::string(key::fleet_rate) + " must be >= 0 requests/s (0: no fleet sizing), got " +
                          text::fixed(s.fleet_rate, 3));
  }
  c.arrival = read_choice(host, key::arrival, llm::parse_arrival, "poisson, constant, burst");
  const std::string lengths = host.get_string(key::lengths);
  if (!lengths.empty()) {
    auto table = llm::read_lengths_file(lengths);
    if (!table) {
      throw InvalidArgument(std::string(key::lengths) + ": " + table.error().message);
    }
    auto shared = std::make_shared<const llm::LengthTable>(std::move(table).value());
    c.isl = std::max(1, static_cast<int>(std::lround(shared->mean_isl())));
    c.osl = std::max(1, static_cast<int>(std::lround(shared->mean_osl())));
    c.lengths = std::move(shared);
  }
}

void read_speculation(const dgx::sdk::Host& host, InferenceSettings& s) {
  llm::SpeculativeConfig& sp = s.config.speculative;
  sp.kind = read_choice(host, key::speculative, llm::parse_speculation, "none, mtp, eagle, draft");
  s.config.engine = read_choice(host, key::engine, llm::parse_serve_engine, "trtllm, vllm, sglang");
  s.config.engine_version = host.get_string(key::engine_version);
  if (!sp.active()) {
    return;
  }
  sp.draft_tokens = workload::read_int(host, key::draft_tokens, 1);
  sp.accepted = host.get_float(key::acceptance);
  const std::string draft = host.get_string(key::draft_model);
  if (sp.kind == llm::Speculation::draft && !draft.empty()) {
    sp.draft_model = std::make_shared<const llm::ModelConfig>(workload::lookup_model(draft, key::draft_model));
  }
}

void read_disaggregation(const dgx::sdk::Host& host, InferenceSettings& s) {
  const std::string mode = host.get_string(key::mode);
  if (mode != "aggregated" && mode != "disaggregated") {
    throw InvalidArgument(std::string(key::mode) + ": '" + mode + "' is not one of aggregated, disaggregated");
  }
  s.disaggregated = mode == "disaggregated";
  const int tp = workload::read_int(host, key::prefill_tp, 0);
  const int ep = workload::read_int(host, key::prefill_ep, 0);
  s.prefill_layout = llm::ServeLayout{.tp = tp > 0 ? tp : s.config.layout.tp,
                                      .pp = 1,
                                      .ep = ep > 0 ? ep : (s.config.layout.attention_dp ? 1 : s.config.layout.ep)};
  s.prefill_workers = workload::read_int(host, key::prefill_workers, 0);
  s.decode_workers = workload::read_int(host, key::decode_workers, 0);
  if (s.disaggregated && (s.prefill_workers == 0) != (s.decode_workers == 0)) {
    throw InvalidArgument(
        "disaggregated serving needs at least one prefill and one decode worker: " + std::string(key::prefill_workers) +
        " = " + std::to_string(s.prefill_workers) + ", " + key::decode_workers + " = " +
        std::to_string(s.decode_workers) + " (both 0: chosen by rate matching)");
  }
}

void read_serve(const dgx::sdk::Host& host, InferenceSettings& s) {
  llm::ServeConfig& c = s.config;
  c.layout = llm::ServeLayout{.tp = workload::read_int(host, key::tp, 1),
                              .pp = workload::read_int(host, key::pp, 1),
                              .ep = workload::read_int(host, key::ep, 1),
                              .attention_dp = host.get_bool(key::attention_dp)};
  c.precision = s.precisions.front();
  c.kv_precision = s.kv_precision_for(c.precision);
  c.isl = workload::read_int(host, key::isl, 1);
  c.osl = workload::read_int(host, key::osl, 1);
  c.isl_stdev = read_non_negative(host, key::isl_stdev, "a standard deviation >= 0");
  c.osl_stdev = read_non_negative(host, key::osl_stdev, "a standard deviation >= 0");
  c.requests = workload::read_int(host, key::requests, 0);
  c.concurrency = workload::read_int(host, key::concurrency, 0);
  c.max_batch_tokens = workload::read_int(host, key::max_batch_tokens, 0);  // 0: the engine's default
  c.max_batch_size = workload::read_int(host, key::max_batch_size, 0);
  c.kv_cache_fraction = host.get_float(key::kv_cache_fraction);
  if (!(c.kv_cache_fraction > 0 && c.kv_cache_fraction <= 1)) {
    throw InvalidArgument(std::string(key::kv_cache_fraction) + " must lie in (0, 1], got " +
                          text::fixed(c.kv_cache_fraction, 3));
  }
  read_load(host, s);
  read_speculation(host, s);
  read_disaggregation(host, s);
  s.slo.ttft = read_non_negative(host, key::slo_ttft, "a time >= 0 (0: no objective)");
  s.slo.tpot = read_non_negative(host, key::slo_tpot, "a time >= 0 (0: no objective)");
}

void read_cost(const dgx::sdk::Host& host, InferenceSettings& s) {
  s.provider = host.get_string(key::provider);
  s.usd_per_gpu_hour = workload::read_usd_per_gpu_hour(host, key::usd_per_gpu_hour);
}

void read_explore(const dgx::sdk::Host& host, InferenceSettings& s) {
  for (const std::int64_t c : host.get_int_list(key::explore_concurrency)) {
    s.explore_concurrency.push_back(workload::bounded_int(key::explore_concurrency, c, 1));
  }
  const std::string rows = host.get_string(key::explore_rows);
  if (rows != "front" && rows != "all") {
    throw InvalidArgument(std::string(key::explore_rows) + ": '" + rows + "' is not one of front, all");
  }
  s.explore_all_rows = rows == "all";
  s.explore_disaggregated = host.get_bool(key::explore_disaggregated);
  s.explore_speculative = host.get_bool(key::explore_speculative);
  s.checkpoint = host.get_string(key::checkpoint);
  // Refused before any work, as the launch files would refuse it: a line break cannot be one shell word's part.
  if (const std::string problem = text::one_line_problem(s.checkpoint); !problem.empty()) {
    throw InvalidArgument(std::string(key::checkpoint) + ": the checkpoint holds " + problem +
                          " (it is one word of the launch files' command lines)");
  }
}

/// serve.fleet_gpus, or the deprecated `gpus` that a script of before issue 35 sets: it wins (a preset now sets
/// serve.fleet_gpus, and the script's --set means to override it), with a warning naming both.
int read_fleet_gpus(const dgx::sdk::Host& host) {
  const int fleet = workload::read_int(host, key::fleet_gpus, 1);
  if (!host.is_set(key::gpus)) {
    return fleet;
  }
  const int old = workload::read_int(host, key::gpus, 1);
  host.log(DGX_LOG_WARNING,
           std::string(key::gpus) + " is the deprecated name of " + key::fleet_gpus +
               " for serving (the GPUs of the fleet; training's gpus are the GPUs of one job): read "
               "as " +
               key::fleet_gpus + "=" + std::to_string(old) +
               (old != fleet ? " over " + std::string(key::fleet_gpus) + " " + std::to_string(fleet) : std::string()));
  return old;
}

}  // namespace

llm::Precision InferenceSettings::kv_precision_for(llm::Precision weights) const {
  return kv_precision ? *kv_precision : llm::auto_kv_precision(weights);
}

void default_to_checkpoint(InferenceSettings& s, const llm::ModelConfig& model) {
  const llm::Precision own = llm::checkpoint_precision(model);
  if (s.precision_configured || own == llm::Precision::bf16) {
    return;
  }
  s.precisions = {own};
  s.checkpoint_precision = true;
  s.config.precision = own;
  s.config.kv_precision = s.kv_precision_for(own);
}

InferenceSettings read_settings(const dgx::sdk::Host& host) {
  InferenceSettings s;
  s.model = host.get_string(key::model);
  s.system = workload::system_spec(host, host.get_string(key::system));
  s.system_configured = host.is_set(key::system);
  s.gpus = read_fleet_gpus(host);
  s.precisions = workload::read_serve_precisions(host);
  s.precision_configured = host.is_set(key::precision);
  s.kv_precision = read_kv_precision(host);
  read_serve(host, s);
  read_cost(host, s);
  read_explore(host, s);
  return s;
}

}  // namespace dgx::plugins::llm_inference
