// The work of a token mixer per sequence, for the layer kinds that are not plain softmax attention over the whole
// context: Mamba-2's chunked SSD scan and Gated DeltaNet's chunked delta rule (prompts and training), their recurrent
// steps and states (decoding), and the keys an attention query sees (sliding window, chunked local attention, DSA's
// top-k) with DSA's lightning indexer. Training (layer_ops), serving (serve_ops) and model FLOPs (flops) all count
// with these; libs/llm-model/README.md "Layer kinds" derives each formula.
#pragma once

#include "dgx/llm/catalog.hpp"

namespace dgx::llm {

/// What one chunked-scan kernel sequence executes: tensor-core FLOPs, bytes read and written, independent tiles
/// (sequences × chunks × heads: the SM fill), kernels launched.
struct ScanWork {
  double flops = 0;
  double bytes = 0;
  double tiles = 0;
  int kernels = 0;
};

/// Recurrent state bytes per element (Mamba-2's SSM state, Gated DeltaNet's delta-rule state): FP32, as Nemotron-H's
/// and Qwen3.5's configs ask of the engines (mamba_ssm_cache_dtype / mamba_ssm_dtype float32).
inline constexpr double kRecurrentStateBytes = 4;
/// Gated DeltaNet's chunk: flash-linear-attention's chunk_gated_delta_rule runs blocks of 64 tokens (BT = 64).
inline constexpr int kDeltaRuleChunk = 64;

// --- Mamba-2 (SSD, arXiv 2405.21060 section 6 and Listing 1; mamba_ssm's mamba_chunk_scan_combined) ----------------
/// The forward of the chunked scan over `sequences` sequences of `length` tokens, on one of `tp` ranks (heads and
/// groups split over TP). Per chunk of q ≤ Q tokens: C·Bᵀ per group (2·q²·N), its masked product with X per head
/// (2·q²·P), the chunk's state Bᵀ·X per head (2·q·P·N), the state's contribution C·h per head (2·q·P·N); per chunk
/// the state passing h ← decay·h + state (2·P·N per head).
[[nodiscard]] ScanWork ssd_forward(const Mamba2Sizes& s, double sequences, double length, int tp = 1);
/// The backward: the gradient of every product of the forward (2× its FLOPs) and the chunk states recomputed
/// (mamba_ssm's backward recomputes them instead of saving them).
[[nodiscard]] ScanWork ssd_backward(const Mamba2Sizes& s, double sequences, double length, int tp = 1);
/// Bytes a decoding sequence keeps per Mamba-2 layer on one of `tp` ranks: the SSM state (heads × head_dim × state
/// in FP32) and the causal convolution's last conv_kernel − 1 inputs of x, B and C (BF16).
[[nodiscard]] double ssd_state_bytes(const Mamba2Sizes& s, int tp = 1);
/// FLOPs of one recurrent step of one sequence (all heads, one rank): h ← exp(dt·A)·h + dt·B·x (3 per state
/// element), y = C·h (2 per state element).
[[nodiscard]] double ssd_step_flops(const Mamba2Sizes& s, int tp = 1);

// --- Gated DeltaNet (arXiv 2412.06464; the WY form of arXiv 2406.06484; flash-linear-attention) --------------------
/// The forward of the chunked delta rule (chunk C = kDeltaRuleChunk) over value heads H (queries and keys repeated
/// to them, as Qwen3-Next's GatedDeltaNet calls the kernel), on one of `tp` ranks. Per chunk of c tokens and head:
/// β·K·Kᵀ (2·c²·dk), the triangular solve (2·c³/3), W and U (2·c²·(dk + dv)), the new values U − W·S and the state
/// update S ← decay·S + Kᵀ·V' (4·c·dk·dv), the output Q·S (2·c·dk·dv) and the masked (Q·Kᵀ)·V' (2·c²·(dk + dv)).
[[nodiscard]] ScanWork delta_rule_forward(const LinearAttentionSizes& la, double sequences, double length, int tp = 1);
/// The backward: 2× the forward's products and the recomputed W, U and chunk states (flash-linear-attention's backward
/// recomputes them).
[[nodiscard]] ScanWork delta_rule_backward(const LinearAttentionSizes& la, double sequences, double length, int tp = 1);
/// Bytes a decoding sequence keeps per Gated DeltaNet layer on one rank: the state (value heads × dk × dv in FP32)
/// and the convolution's last conv_kernel − 1 inputs of q, k and v (BF16).
[[nodiscard]] double delta_rule_state_bytes(const LinearAttentionSizes& la, int tp = 1);
/// FLOPs of one recurrent step of one sequence: decay, Kᵀ·S, the rank-one update, Q·S (7 per state element).
[[nodiscard]] double delta_rule_step_flops(const LinearAttentionSizes& la, int tp = 1);

// --- attention ----------------------------------------------------------------------------------------------------
/// Keys a query of an attention layer (a layer view: its sliding_window, attention_chunk, sparse_topk) attends to, on
/// average over the `length` positions of a sequence processed from its start: causal: min(p, span) over positions
/// p = 1..length (a window: the last w; a chunk: the position inside its chunk; DSA: the top-k), full: the keys of the
/// span without the causal mask (the published MFU convention's s per query, limited to the span).
[[nodiscard]] double attention_keys_per_query(const ModelConfig& layer, double length, bool causal);
/// Keys a prompt token attends to in a layer, when `mean_keys` is what it attends to under full causal attention (a
/// prompt of 2·mean_keys tokens from its start): within a window or top-k w, mean of min(p, w) = mean_keys below
/// w/2, else w − w²/(4·mean_keys); within chunks of c, each chunk's causal triangle over the prompt's length.
[[nodiscard]] double prefill_keys(const ModelConfig& layer, double mean_keys);
/// The keys a decoding token at context `context` reads in a layer (the KV a sequence holds there): the context, at
/// most the window, the position inside the current chunk, or the top-k.
[[nodiscard]] double decode_keys(const ModelConfig& layer, double context);
/// Forward FLOPs per (query, earlier key) pair of DSA's lightning indexer: indexer_heads · (2·indexer_head_dim + 2)
/// (the FP8 q·k of each head, its ReLU weighted by the head's weight and summed); 0 without sparse attention.
[[nodiscard]] double indexer_flops_per_pair(const ModelConfig& layer);

}  // namespace dgx::llm
