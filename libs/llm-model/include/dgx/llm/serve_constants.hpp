// Constants of the serving engines the inference model describes (TensorRT-LLM's PyTorch backend, vLLM V1): what
// the software does, not what the hardware can. Hardware fractions live in configs/systems/*.toml and are shared
// with the training model. Nothing here is fitted: the per-iteration costs are derived from what the engine does
// (each says how), and configs/baselines/inference.toml checks the result.
#pragma once

namespace dgx::llm::serve_constants {

/// Version of the serving model, printed with every projection.
inline constexpr const char* kModelVersion = "dgx-llm-serve 2";

// --- weights --------------------------------------------------------------------------------------------------
/// Bytes per parameter of the token embedding and the LM head: quantized checkpoints (ModelOpt FP8 / NVFP4, as
/// TensorRT-LLM and vLLM load them) quantize the decoder's linear layers only; embedding and LM head stay BF16.
inline constexpr double kEmbeddingBytes = 2;
/// Norm weights and the MoE router stay BF16 too.
inline constexpr double kSmallWeightBytes = 2;

// --- the engine's iteration -----------------------------------------------------------------------------------
/// Per-kernel time beyond the roofline inside a CUDA graph (the engines capture decode-only iterations): the
/// graph's node launch (~1 µs, no host call) and the pipeline's fill from HBM (~1 µs: DRAM latency plus the first
/// wave's ramp). Eager iterations (those with prompt chunks) pay the system profile's kernel_overhead_us instead.
inline constexpr double kGraphKernelOverheadUs = 2;
/// Decode-only batches up to this size run as captured CUDA graphs (TensorRT-LLM's cuda_graph_config max_batch_size
/// and vLLM's largest capture size are of this order); larger ones and mixed ones run eagerly.
inline constexpr int kCudaGraphMaxBatch = 512;
/// Host work of one iteration of the engine's Python executor loop besides its requests: scheduling, the resource
/// manager, preparing the attention metadata and inputs, launching the graph, reading the sampled tokens back:
/// a few hundred interpreted operations of ~1 µs each.
inline constexpr double kHostIterationS = 300e-6;
/// Host work per scheduled request and iteration: its bookkeeping (tokens appended, stop checks, KV block table
/// updates, response handling), a few dozen interpreted operations.
inline constexpr double kHostPerRequestS = 4e-6;
/// What the overlap scheduler (TensorRT-LLM's default, vLLM's async scheduling) cannot hide: the host prepares
/// iteration n + 1 while the GPU runs iteration n, so only host work beyond the GPU's time is exposed, plus the
/// boundary between two iterations: the event synchronisation and the copy of the next inputs (~20 µs).
inline constexpr double kIterationGapS = 20e-6;
/// One-shot all-reduce (TensorRT-LLM's custom all-reduce, vLLM's custom all-reduce): each rank stores its buffer
/// into every peer's over NVLink and reduces locally after a flag barrier, two hops instead of a ring's 2 (n − 1).
/// The engines use it up to messages of this size and NCCL's ring beyond (where bandwidth wins).
inline constexpr double kOneShotAllReduceMaxBytes = 8.0 * 1024 * 1024;

/// Token budget of one iteration (prefill chunks + one token per decoding sequence) when the configuration gives
/// none: TensorRT-LLM's max_num_tokens and vLLM's max_num_batched_tokens default of 8192.
inline constexpr int kDefaultMaxBatchTokens = 8192;
/// Requests one iteration schedules at most when the configuration gives no limit: TensorRT-LLM's max_batch_size
/// default of 2048 (it also sizes the logits buffer).
inline constexpr int kDefaultMaxBatchSize = 2048;
/// Fraction of the memory left after weights, activations and the reserve that becomes KV cache, by default:
/// TensorRT-LLM's kv_cache_free_gpu_mem_fraction default (0.9); the calibration set ran with 0.95.
inline constexpr double kDefaultKvCacheFraction = 0.9;

// --- disaggregated prefill and decode ----------------------------------------------------------------------------
/// The most a rate-matched deployment loads its prefill workers: prompts arrive at random (Poisson), so a prefill
/// worker busy all the time would queue without bound; at 0.8 the mean wait is two prefill iterations (M/D/1).
inline constexpr double kPrefillUtilisation = 0.8;
/// The control path of one KV transfer (NIXL / UCX as TensorRT-LLM and vLLM's disaggregated connectors use it): the
/// decode worker's request, the block list, the completion notice, a few round trips of the runtime's RPC of
/// ~100-300 µs each.
inline constexpr double kKvTransferSetupS = 1e-3;

// --- activations ------------------------------------------------------------------------------------------------
/// Logits are computed in FP32 (4 bytes) for the tokens that sample.
inline constexpr double kLogitBytes = 4;
/// Sampling reads the logits twice (max / softmax, then the draw) and writes one token: bytes per logit element.
inline constexpr double kSamplingBytesPerLogit = 8;

}  // namespace dgx::llm::serve_constants
