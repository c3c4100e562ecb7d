// Constants of the serving engines the inference model describes (TensorRT-LLM's PyTorch backend, vLLM V1): what
// the software does, not what the hardware can. Hardware fractions live in configs/systems/*.toml and are shared
// with the training model; only kStepOverheadS is fitted, on configs/baselines/inference.toml.
#pragma once

namespace dgx::llm::serve_constants {

/// Version of the serving model, printed with every projection.
inline constexpr const char* kModelVersion = "dgx-llm-serve 1";

// --- weights --------------------------------------------------------------------------------------------------
/// Bytes per parameter of the token embedding and the LM head: quantized checkpoints (ModelOpt FP8 / NVFP4, as
/// TensorRT-LLM and vLLM load them) quantize the decoder's linear layers only; embedding and LM head stay BF16.
inline constexpr double kEmbeddingBytes = 2;
/// Norm weights and the MoE router stay BF16 too.
inline constexpr double kSmallWeightBytes = 2;

// --- the engine's iteration -----------------------------------------------------------------------------------
/// Time of one engine iteration beyond its kernels' rooflines: scheduling the batch, sampling, host-device
/// synchronisation, the gaps between CUDA graphs and the eager parts of the step. Fitted on the calibration set
/// (configs/baselines/inference.md: the TensorRT-LLM PyTorch backend); the only fitted constant of the model.
inline constexpr double kStepOverheadS = 0.003;
/// Token budget of one iteration (prefill chunks + one token per decoding sequence) when the configuration gives
/// none: TensorRT-LLM's max_num_tokens and vLLM's max_num_batched_tokens default of 8192.
inline constexpr int kDefaultMaxBatchTokens = 8192;
/// Requests one iteration schedules at most when the configuration gives no limit: TensorRT-LLM's max_batch_size
/// default of 2048 (it also sizes the logits buffer).
inline constexpr int kDefaultMaxBatchSize = 2048;
/// Fraction of the memory left after weights, activations and the reserve that becomes KV cache, by default:
/// TensorRT-LLM's kv_cache_free_gpu_mem_fraction default (0.9); the calibration set ran with 0.95.
inline constexpr double kDefaultKvCacheFraction = 0.9;

// --- activations ------------------------------------------------------------------------------------------------
/// Logits are computed in FP32 (4 bytes) for the tokens that sample.
inline constexpr double kLogitBytes = 4;
/// Sampling reads the logits twice (max / softmax, then the draw) and writes one token: bytes per logit element.
inline constexpr double kSamplingBytesPerLogit = 8;

}  // namespace dgx::llm::serve_constants
