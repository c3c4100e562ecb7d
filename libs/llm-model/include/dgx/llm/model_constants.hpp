// Constants of the training framework the model describes (Megatron-core with Transformer Engine, as used by
// NeMo). Hardware-dependent parameters live in configs/systems/*.toml; these describe what the software does.
// None is fitted to a row or a model: each is a documented behaviour or a physical estimate.
#pragma once

namespace dgx::llm::constants {

/// Version of the performance model, printed with every projection.
inline constexpr const char* kModelVersion = "dgx-llm-model 3";

// --- sizes -------------------------------------------------------------------------------------------------------
/// Bytes per element of BF16 and FP32 tensors, and bytes per GiB.
inline constexpr double kBf16 = 2;
inline constexpr double kFp32 = 4;
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
/// Query rows per flash-attention tile: diagonal tiles of a causal mask are computed whole, so the executed
/// fraction of the q×k square is (1 + tile/q_len)/2 rather than 1/2.
inline constexpr double kCausalTile = 128;

// --- bytes per parameter (Megatron mixed precision, docs "distributed optimizer") ---------------------------
// BF16 model weights, or the low-precision format's row- and column-wise copies (memory_model.hpp
// parameter_bytes()).
/// Gradient buffer. BF16: NVIDIA's performance recipes set grad_reduce_in_fp32=False, so the main-grad buffer
/// and the data-parallel reduction are BF16 (Megatron allocates main_grad in the reduction dtype).
inline constexpr double kGradBytes = 2;
/// FP32 master weights + Adam first and second moments: 4 + 4 + 4.
inline constexpr double kOptimizerBytes = 12;
/// FP8 runs: Transformer Engine caches each linear weight in FP8 and its transpose (for dgrad) per step.
inline constexpr double kFp8WeightCacheBytes = 2;
/// Adam step traffic per locally owned (sharded) parameter: read grad (2), read+write master (8), read+write
/// m and v (16), write the BF16 weight (2), read the grad again for the global norm (2).
inline constexpr double kAdamBytesPerParam = 30;
/// Per local parameter once per step: zero the grad buffer (write 2); FP8 runs also re-cast weights to FP8
/// with transpose (read 2, write 1 + 1).
inline constexpr double kZeroGradBytesPerParam = 2;
inline constexpr double kFp8RecastBytesPerParam = 4;

// --- data-parallel communication (Megatron DDP) ----------------------------------------------------------
/// Gradient bucket: Megatron's default bucket_size = max(40e6, 1e6 · dp) parameters.
inline constexpr double kBucketMinParams = 40e6;
inline constexpr double kBucketParamsPerDpRank = 1e6;

// --- host link ------------------------------------------------------------------------------------------------
/// Achieved fraction of the host link (PCIe or NVLink-C2C) for large pinned copies: ~52 of 64 GB/s on PCIe 5.0
/// x16 and ~375-400 of 450 GB/s on NVLink-C2C are the commonly measured orders.
inline constexpr double kHostLinkEfficiency = 0.8;

// --- memory -------------------------------------------------------------------------------------------------
/// Set aside on every GPU: CUDA context and cuBLAS/cuDNN workspaces (~1 GiB), NCCL buffers (~1 GiB).
inline constexpr double kReserveGiB = 2;
/// PyTorch caching-allocator fragmentation, as a fraction of HBM. With this reserve every published layout
/// of the calibration set fits (the tightest, GPT-3 20B TP2 MBS2 FP8, at 78.7 of 80 GiB).
inline constexpr double kFragmentation = 0.03;

// --- memory-bound traffic -------------------------------------------------------------------------------------
/// Cross-entropy over the vocabulary-parallel logits (Megatron's vocab-parallel cross entropy), bytes per logit
/// element. Forward: read the BF16 logits and write FP32 (2 + 4), max (4), subtract-exp in place (4 + 4), sum
/// (4 — the softmax stays in the buffer for the backward). Backward: read the softmax, write the gradient
/// (4 + 4), cast it to BF16 for the LM-head GEMMs (4 + 2).
inline constexpr double kLossForwardBytesPerLogit = 22;
inline constexpr double kLossBackwardBytesPerLogit = 14;

}  // namespace dgx::llm::constants
