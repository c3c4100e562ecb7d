#include "params.hpp"

#include <string>

#include <dgx/sdk/text.hpp>

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/serve_constants.hpp"
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
                    "model to serve, from the model catalog (" + dgx::sdk::text::join(llm::model_names()) +
                        ") or a Hugging Face config.json: PATH/config.json or its folder"),
      Param::string(key::system, "h100-sxm", workload::system_help()),
      Param::integer(key::fleet_gpus, 8,
                     "GPUs of the fleet: replicas = serve.fleet_gpus / (TP x PP); explore keeps replicas within it "
                     "(metrics are per replica; output_tokens_per_s_fleet multiplies)",
                     "GPUs"),
      Param::integer(key::gpus, 8,
                     "deprecated name of serve.fleet_gpus (training's gpus are the GPUs of one job, serving's the "
                     "fleet's): still read, with a warning",
                     "GPUs")
          .without_default(),
      Param::string_list(
          key::precision, {"bf16", "fp8"},
          "weights and activations of the linear layers: explore sweeps them, project uses the first "
          "(nvfp4, mxfp8: Blackwell only; fp8-block: 128x128-block FP8 at the FP8 peak; mxfp4: "
          "W4A16 on Hopper, W4A8 on Blackwell; int4: W4A16); unset, a model whose checkpoint ships quantized is "
          "served in its own format (gpt-oss: mxfp4 experts); mfu = model FLOPs of one prompt's "
          "prefill / its time on the idle replica / GPUs / dense peak of the precision its GEMMs run at",
          "bf16|fp8|nvfp4|mxfp8|fp8-block|mxfp4|int4"),
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
      Param::integer(key::max_batch_tokens, 0,
                     "token budget of one iteration: prompt chunks + one token per decoding request (TensorRT-LLM "
                     "max_num_tokens, vLLM max_num_batched_tokens, SGLang chunked_prefill_size); 0: the engine's "
                     "default (configs/engines/)",
                     "tokens"),
      Param::integer(key::max_batch_size, 0,
                     "requests one iteration schedules at most (TensorRT-LLM max_batch_size, vLLM max_num_seqs, "
                     "SGLang max_running_requests); 0: the engine's default (configs/engines/); max_concurrency = "
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
      Param::boolean(key::explore_disaggregated, true,
                     "explore also disaggregated deployments (prefill and decode workers, xPyD rate matched within "
                     "serve.fleet_gpus) on the same Pareto front"),
      Param::boolean(key::explore_speculative, true,
                     "with serve.speculative set, explore every configuration with and without it"),
      Param::string(key::mode, "aggregated",
                    "aggregated: prefill and decode in one engine (in-flight batching); disaggregated: prefill "
                    "workers (serve.prefill_tp, serve.prefill_ep) hand each request's KV cache to decode workers "
                    "(parallel.*), over NVLink or the scale-out network, its time in TTFT (--mode project)",
                    "aggregated|disaggregated"),
      Param::integer(key::prefill_tp, 0, "TP of a prefill worker (disaggregated); 0: parallel.tp"),
      Param::integer(key::prefill_ep, 0, "EP of a prefill worker (disaggregated, MoE); 0: parallel.ep"),
      Param::integer(key::prefill_workers, 0,
                     "prefill workers (disaggregated); 0 with serve.decode_workers 0: chosen by rate matching "
                     "within serve.fleet_gpus"),
      Param::integer(key::decode_workers, 0, "decode workers (disaggregated); see serve.prefill_workers"),
      Param::boolean(key::attention_dp, false,
                     "attention data parallel over the TP GPUs, MoE models only: each GPU attends to its own requests "
                     "with its own KV cache, experts spread over all (parallel.ep = parallel.tp: DEP), an all-to-all "
                     "per MoE layer (TensorRT-LLM enable_attention_dp)"),
      Param::floating(key::request_rate, 0,
                      "open loop: requests/s arriving per replica (vllm bench serve --request-rate, AIPerf "
                      "--request-rate); TTFT then includes queueing; unset: closed loop (serve.concurrency); beyond "
                      "the replica's capacity it saturates, and the row says so with the saturation rate",
                      "requests/s")
          .without_default(),
      Param::floating(key::fleet_rate, 0,
                      "requests/s the whole fleet must carry (explore): the fewest GPUs of whole replicas of one "
                      "explored configuration that serve it within the SLOs, within serve.fleet_gpus; the launch "
                      "files and the AIPerf command are for that fleet; 0: no fleet sizing",
                      "requests/s"),
      Param::string(key::arrival, "poisson",
                    "open-loop arrivals: poisson (exponential gaps), constant, or burst (every request at t = 0, "
                    "as --request-rate inf)",
                    "poisson|constant|burst"),
      Param::string(key::lengths, "",
                    "CSV of request lengths: input,output per request (a trace) or input,output,count (a "
                    "histogram); drives the simulation instead of serve.isl/osl (configs/lengths/sharegpt-like.csv "
                    "is a synthetic example)"),
      Param::string(key::speculative, "none",
                    "speculative decoding: mtp (the model's MTP module, DeepSeek), eagle (an EAGLE-3 head), draft (a "
                    "draft model, serve.draft_model); the acceptance is given (serve.acceptance): output quality and "
                    "acceptance are not modelled",
                    "none|mtp|eagle|draft"),
      Param::integer(key::draft_tokens, 3, "tokens drafted per request and step (max_draft_len)", "tokens"),
      Param::floating(key::acceptance, 1.5,
                      "mean draft tokens accepted per step, 0..serve.draft_tokens (acceptance length - 1), measured on "
                      "your data: it decides the gain and is not predicted here",
                      "tokens"),
      Param::string(key::draft_model, "", "the draft model of serve.speculative = draft, from the model catalog"),
      Param::string(key::engine, "trtllm",
                    "the serving engine (configs/engines/): its features are checked, its calibration corrects the "
                    "latencies, the launch files are its commands",
                    "trtllm|vllm|sglang"),
      Param::string(key::engine_version, "",
                    "a release of the engine's profile (configs/engines/<engine>.toml); empty: its newest"),
      Param::string(key::checkpoint, "",
                    "the checkpoint the launch files serve (a Hugging Face id or a path); empty: the usual one for "
                    "the model and precision"),
  };
}

}  // namespace dgx::plugins::llm_inference
