// The configuration schema of the llm-inference workload: the keys users' scripts and presets rely on
// (configs/workloads/*-serve.toml use them), with defaults equal to the llama8b-serve preset so that
// `dgxhost --plugin llm-inference` alone projects Llama 3.1 8B on H100. The help texts carry the metric definitions
// (--describe prints them).
#pragma once

#include <vector>

#include <dgx/sdk/workload.hpp>

#include "dgx/llm/workload/keys.hpp"

namespace dgx::plugins::llm_inference {

/// Config keys: those every LLM workload shares (libs/llm-workload, keys.hpp) and serving's own. Renaming one breaks
/// users' scripts and presets.
namespace key {
using namespace llm::workload::key;
/// The GPUs of the serving fleet (replicas = fleet / GPUs per replica). Training's `gpus` are the GPUs of one job:
/// serving spelt this `gpus` until issue 35, which it still reads as a deprecated alias.
inline constexpr const char* fleet_gpus = "serve.fleet_gpus";
inline constexpr const char* kv_precision = "serve.kv_precision";
inline constexpr const char* isl = "serve.isl";
inline constexpr const char* osl = "serve.osl";
inline constexpr const char* isl_stdev = "serve.isl_stdev";
inline constexpr const char* osl_stdev = "serve.osl_stdev";
inline constexpr const char* requests = "serve.requests";
inline constexpr const char* concurrency = "serve.concurrency";
inline constexpr const char* max_batch_tokens = "serve.max_batch_tokens";
inline constexpr const char* max_batch_size = "serve.max_batch_size";
inline constexpr const char* kv_cache_fraction = "serve.kv_cache_fraction";
inline constexpr const char* slo_ttft = "serve.slo.ttft";
inline constexpr const char* slo_tpot = "serve.slo.tpot";
inline constexpr const char* explore_concurrency = "explore.concurrency";
inline constexpr const char* explore_rows = "explore.rows";
inline constexpr const char* mode = "serve.mode";
inline constexpr const char* request_rate = "serve.request_rate";
inline constexpr const char* fleet_rate = "serve.fleet_rate";
inline constexpr const char* arrival = "serve.arrival";
inline constexpr const char* lengths = "serve.lengths";
inline constexpr const char* speculative = "serve.speculative";
inline constexpr const char* draft_tokens = "serve.draft_tokens";
inline constexpr const char* acceptance = "serve.acceptance";
inline constexpr const char* draft_model = "serve.draft_model";
inline constexpr const char* engine = "serve.engine";
inline constexpr const char* engine_version = "serve.engine_version";
inline constexpr const char* checkpoint = "serve.checkpoint";
inline constexpr const char* attention_dp = "parallel.attention_dp";
inline constexpr const char* prefill_tp = "serve.prefill_tp";
inline constexpr const char* prefill_ep = "serve.prefill_ep";
inline constexpr const char* prefill_workers = "serve.prefill_workers";
inline constexpr const char* decode_workers = "serve.decode_workers";
inline constexpr const char* explore_disaggregated = "explore.disaggregated";
inline constexpr const char* explore_speculative = "explore.speculative";
}  // namespace key

/// Every parameter of the workload, with its default, unit and help.
[[nodiscard]] std::vector<dgx::sdk::Param> inference_params();

}  // namespace dgx::plugins::llm_inference
