#include "params.hpp"

#include <string>

#include <dgx/sdk/text.hpp>

#include "dgx/llm/model_catalog.hpp"
#include "dgx/llm/serve_constants.hpp"
#include "dgx/llm/system_catalog.hpp"
#include "dgx/llm/workload/keys.hpp"

namespace dgx::plugins::llm_inference {

namespace {

using dgx::sdk::Param;
namespace workload = llm::workload;

}  // namespace

std::vector<Param> inference_params() {
  namespace c = llm::serve_constants;
  return {
      Param::string(key::model, "llama3.1-8b",
                    "model to serve, from the model catalog: " + dgx::sdk::text::join(llm::model_names())),
      Param::string(key::system, "h100-sxm", workload::system_help()),
      Param::integer(key::gpus, 8,
                     "GPUs of the fleet: replicas = gpus / (TP x PP); explore keeps replicas within it (metrics are "
                     "per replica; output_tokens_per_s_fleet multiplies)",
                     "GPUs"),
      Param::string_list(key::precision, {"bf16", "fp8"},
                         "weights and activations of the linear layers: explore sweeps them, project uses the first "
                         "(nvfp4, mxfp8: Blackwell only); mfu = model FLOPs of one prompt's prefill / its time on the "
                         "idle replica / GPUs / dense peak of this precision",
                         "bf16|fp8|nvfp4|mxfp8"),
      Param::string(key::kv_precision, "auto",
                    "KV cache format; auto: fp8 with FP8 or FP4 weights, else bf16; mbu = (weight bytes + KV bytes "
                    "read per decode iteration) / TPOT / HBM peak, per GPU (Databricks' MBU); kv_cache_tokens = KV "
                    "memory / (2 x layers x KV heads x head dim x bytes) per GPU",
                    "auto|bf16|fp8|nvfp4"),
      Param::integer(key::tp, 1,
                     "tensor-parallel GPUs of a replica, within the NVLink domain (two all-reduces per layer) "
                     "(--mode project)"),
      Param::integer(key::pp, 1, "pipeline stages of a replica; pp micro-batches in flight (--mode project)"),
      Param::integer(key::ep, 1,
                     "expert parallel inside the TP group, MoE models only: EP x expert-TP = TP (TensorRT-LLM's "
                     "moe_ep_size) (--mode project)"),
      Param::integer(key::isl, 1000, "input (prompt) tokens per request: the mean with serve.isl_stdev", "tokens"),
      Param::integer(key::osl, 1000, "output tokens per request: the mean with serve.osl_stdev", "tokens"),
      Param::floating(key::isl_stdev, 0,
                      "standard deviation of the prompt length (trtllm-bench token-norm-dist); > 0 simulates the "
                      "requests one by one and reports medians and p99 (numpy's linear interpolation)",
                      "tokens"),
      Param::floating(key::osl_stdev, 0, "standard deviation of the output length (see serve.isl_stdev)", "tokens"),
      Param::integer(key::requests, 0,
                     "requests the simulation serves after a warm-up burst (lengths with a spread); 0: enough for a "
                     "steady state",
                     "requests"),
      Param::integer(key::concurrency, 0,
                     "requests in flight per replica, closed loop (AIPerf / vLLM --max-concurrency): a finished one is "
                     "replaced at once; 0: offline, as many as fit; beyond what fits they queue (TTFT grows). "
                     "output_tokens_per_s = output tokens / duration; requests_per_s = requests / duration",
                     "requests"),
      Param::integer(key::max_batch_tokens, c::kDefaultMaxBatchTokens,
                     "token budget of one iteration: prompt chunks + one token per decoding request (TensorRT-LLM "
                     "max_num_tokens, vLLM max_num_batched_tokens)",
                     "tokens"),
      Param::integer(key::max_batch_size, c::kDefaultMaxBatchSize,
                     "requests one iteration schedules at most (TensorRT-LLM max_batch_size); max_concurrency = "
                     "min(this, KV tokens / (ISL + OSL)): a request reserves its prompt + output",
                     "requests"),
      Param::floating(key::kv_cache_fraction, c::kDefaultKvCacheFraction,
                      "of the memory left after weights, activations and a 2 GiB reserve, the share given to the KV "
                      "cache (TensorRT-LLM kv_cache_free_gpu_mem_fraction)"),
      Param::floating(key::slo_ttft, 2.0,
                      "TTFT objective, p99 (MLPerf Server: 2 s for Llama 2 70B); TTFT = time of the first output "
                      "token - send time",
                      "s"),
      Param::floating(key::slo_tpot, 0.05,
                      "TPOT objective, p99; TPOT = (E2E - TTFT) / (output tokens - 1), trtllm-bench's TPOT and "
                      "AIPerf's ITL (NOT vLLM's ITL, the gap between streamed chunks); per-user tokens/s = 1 / TPOT",
                      "s"),
      Param::string(key::provider, "",
                    "price from this provider of configs/pricing (e.g. aws, nebius, owned); empty: the cheapest "
                    "on-demand list price; usd_per_million_output_tokens = replica GPUs x USD/GPU-h / 3600 / "
                    "output tokens/s x 1e6"),
      Param::floating(key::usd_per_gpu_hour, 0, "an explicit price instead of the catalog's", "USD/GPU-h")
          .without_default(),
      Param::int_list(key::explore_concurrency, {},
                      "concurrencies to explore; empty: powers of two up to the most that fit, and offline",
                      "requests"),
      Param::string(key::explore_rows, "front",
                    "rows explore prints: the Pareto front (and the recommendation), or every configuration",
                    "front|all"),
  };
}

}  // namespace dgx::plugins::llm_inference
