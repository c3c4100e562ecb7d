#include "dgx/llm/mixer_work.hpp"

#include "dgx/llm/model_constants.hpp"

#include <algorithm>
#include <cmath>

namespace dgx::llm {

namespace {

using constants::kBf16;
using constants::kFp32;

/// Kernels of mamba_ssm's chunked scan: forward chunk_cumsum, chunk_state, state_passing, bmm_chunk (C·Bᵀ),
/// chunk_scan; its backward (_mamba_chunk_scan_combined_bwd) recomputes the states (3) and runs the gradient
/// kernels of each product and of the cumulative decay (10).
constexpr int kSsdForwardKernels = 5;
constexpr int kSsdBackwardKernels = 13;
/// flash-linear-attention's chunk_gated_delta_rule: forward the gates' cumulative sum, the q/k L2 norms, β·K·Kᵀ,
/// the triangular solve, W and U, the chunk states, the output (7); backward the recomputed W, U and states (2)
/// and the gradient kernels (8).
constexpr int kDeltaRuleForwardKernels = 7;
constexpr int kDeltaRuleBackwardKernels = 10;

/// A sequence of `length` tokens in chunks of `chunk`: how many, and Σ of each chunk's size squared.
struct Chunks {
  double count = 0;
  double squares = 0;
  double cubes = 0;
};
Chunks chunks_of(double length, double chunk) {
  const double whole = std::floor(length / chunk);
  const double rest = length - whole * chunk;
  return Chunks{.count = whole + (rest > 0 ? 1 : 0),
                .squares = whole * chunk * chunk + rest * rest,
                .cubes = whole * chunk * chunk * chunk + rest * rest * rest};
}

struct SsdRank {
  double heads, head_dim, state, groups, inner;
};
SsdRank ssd_rank(const Mamba2Sizes& s, int tp) {
  const double heads = static_cast<double>(s.heads) / tp;
  return SsdRank{.heads = heads,
                 .head_dim = static_cast<double>(s.head_dim),
                 .state = static_cast<double>(s.state),
                 .groups = static_cast<double>(s.groups) / tp,
                 .inner = heads * s.head_dim};
}

/// The forward's products: intra-chunk (C·Bᵀ and its product with X), the chunk states, the states' output, and
/// the state passing between chunks.
struct SsdFlops {
  double intra = 0, states = 0, output = 0, passing = 0;
};
SsdFlops ssd_flops(const Mamba2Sizes& s, double sequences, double length, int tp) {
  const SsdRank r = ssd_rank(s, tp);
  const Chunks c = chunks_of(length, s.chunk);
  const double tokens = sequences * length;
  const double state = r.heads * r.head_dim * r.state;  // state elements of one sequence on this rank
  return SsdFlops{.intra = sequences * 2.0 * c.squares * (r.groups * r.state + r.heads * r.head_dim),
                  .states = 2.0 * tokens * state,
                  .output = 2.0 * tokens * state,
                  .passing = sequences * c.count * 2.0 * state};
}

/// The scan's tensors: x, B, C, dt read and y written (BF16), the chunk states written by chunk_state, read and
/// written by the state passing and read by chunk_scan (FP32), C·Bᵀ written and read (FP32), the cumulative decay
/// written and read (FP32).
double ssd_bytes(const Mamba2Sizes& s, double sequences, double length, int tp) {
  const SsdRank r = ssd_rank(s, tp);
  const Chunks c = chunks_of(length, s.chunk);
  const double tokens = sequences * length;
  const double io = tokens * (2 * r.inner + 2 * r.groups * r.state + r.heads) * kBf16;
  const double states = 4 * sequences * c.count * r.heads * r.head_dim * r.state * kFp32;
  const double cb = 2 * sequences * c.squares * r.groups * kFp32;
  return io + states + cb + 2 * tokens * r.heads * kFp32;
}

struct DeltaRank {
  double heads, dk, dv;
};
DeltaRank delta_rank(const LinearAttentionSizes& la, int tp) {
  return DeltaRank{.heads = static_cast<double>(la.value_heads) / tp,
                   .dk = static_cast<double>(la.key_head_dim),
                   .dv = static_cast<double>(la.value_head_dim)};
}

/// The forward's products per head: the chunk-local ones (β·K·Kᵀ, solve, W, U, the masked Q·Kᵀ and its product
/// with V') and the state ones (U − W·S, the state update, Q·S).
struct DeltaFlops {
  double local = 0, state = 0, wu = 0;
};
DeltaFlops delta_flops(const LinearAttentionSizes& la, double sequences, double length, int tp) {
  const DeltaRank r = delta_rank(la, tp);
  const Chunks c = chunks_of(length, kDeltaRuleChunk);
  const double tokens = sequences * length;
  const double kkt = 2.0 * c.squares * r.dk;
  const double solve = 2.0 * c.cubes / 3.0;
  const double wu = 2.0 * c.squares * (r.dk + r.dv);
  const double masked = 2.0 * c.squares * (r.dk + r.dv);
  return DeltaFlops{.local = sequences * r.heads * (kkt + solve + wu + masked),
                    .state = 6.0 * tokens * r.heads * r.dk * r.dv,
                    .wu = sequences * r.heads * wu};
}

/// The kernel's tensors: q, k, v read and o written (BF16, per value head), the gates and β (FP32), the chunk states
/// written and read (BF16), the solved chunk matrices written and read (BF16).
double delta_bytes(const LinearAttentionSizes& la, double sequences, double length, int tp) {
  const DeltaRank r = delta_rank(la, tp);
  const Chunks c = chunks_of(length, kDeltaRuleChunk);
  const double tokens = sequences * length;
  const double io = tokens * r.heads * (2 * r.dk + 2 * r.dv) * kBf16 + 2 * tokens * r.heads * kFp32;
  const double states = 2 * sequences * c.count * r.heads * r.dk * r.dv * kBf16;
  const double solved = 2 * sequences * c.squares * r.heads * kBf16;
  return io + states + solved;
}

/// The span of keys a query of `layer` may attend to: its window, its chunk, its top-k; 0: unlimited.
double key_span(const ModelConfig& layer) {
  double span = 0;
  for (const int limit :
       {layer.sliding_window_layers >= 1 ? layer.sliding_window : 0, layer.attention_chunk, layer.sparse_topk}) {
    if (limit > 0) {
      span = span > 0 ? std::min(span, static_cast<double>(limit)) : limit;
    }
  }
  return span;
}

}  // namespace

ScanWork ssd_forward(const Mamba2Sizes& s, double sequences, double length, int tp) {
  const SsdFlops f = ssd_flops(s, sequences, length, tp);
  return ScanWork{.flops = f.intra + f.states + f.output + f.passing,
                  .bytes = ssd_bytes(s, sequences, length, tp),
                  .tiles = sequences * chunks_of(length, s.chunk).count * ssd_rank(s, tp).heads,
                  .kernels = kSsdForwardKernels};
}

ScanWork ssd_backward(const Mamba2Sizes& s, double sequences, double length, int tp) {
  const SsdFlops f = ssd_flops(s, sequences, length, tp);
  const double forward = f.intra + f.states + f.output + f.passing;
  return ScanWork{.flops = 2.0 * forward + f.states + f.passing,
                  .bytes = 2.0 * ssd_bytes(s, sequences, length, tp),
                  .tiles = sequences * chunks_of(length, s.chunk).count * ssd_rank(s, tp).heads,
                  .kernels = kSsdBackwardKernels};
}

double ssd_state_bytes(const Mamba2Sizes& s, int tp) {
  const SsdRank r = ssd_rank(s, tp);
  const double conv = (s.conv_kernel - 1.0) * (r.inner + 2 * r.groups * r.state);
  return r.heads * r.head_dim * r.state * kRecurrentStateBytes + conv * kBf16;
}

double ssd_step_flops(const Mamba2Sizes& s, int tp) {
  const SsdRank r = ssd_rank(s, tp);
  return 5.0 * r.heads * r.head_dim * r.state;
}

ScanWork delta_rule_forward(const LinearAttentionSizes& la, double sequences, double length, int tp) {
  const DeltaFlops f = delta_flops(la, sequences, length, tp);
  return ScanWork{.flops = f.local + f.state,
                  .bytes = delta_bytes(la, sequences, length, tp),
                  .tiles = sequences * chunks_of(length, kDeltaRuleChunk).count * delta_rank(la, tp).heads,
                  .kernels = kDeltaRuleForwardKernels};
}

ScanWork delta_rule_backward(const LinearAttentionSizes& la, double sequences, double length, int tp) {
  const DeltaFlops f = delta_flops(la, sequences, length, tp);
  // Recomputed: W and U, and the states (U − W·S and the update: 4 of the forward's 6 per state element and token).
  const double recomputed = f.wu + 4.0 / 6.0 * f.state;
  return ScanWork{.flops = 2.0 * (f.local + f.state) + recomputed,
                  .bytes = 2.0 * delta_bytes(la, sequences, length, tp),
                  .tiles = sequences * chunks_of(length, kDeltaRuleChunk).count * delta_rank(la, tp).heads,
                  .kernels = kDeltaRuleBackwardKernels};
}

double delta_rule_state_bytes(const LinearAttentionSizes& la, int tp) {
  const DeltaRank r = delta_rank(la, tp);
  const double key = static_cast<double>(la.key_heads) / tp * la.key_head_dim;
  const double conv = (la.conv_kernel - 1.0) * (2 * key + r.heads * r.dv);
  return r.heads * r.dk * r.dv * kRecurrentStateBytes + conv * kBf16;
}

double delta_rule_step_flops(const LinearAttentionSizes& la, int tp) {
  const DeltaRank r = delta_rank(la, tp);
  return 7.0 * r.heads * r.dk * r.dv;
}

double attention_keys_per_query(const ModelConfig& layer, double length, bool causal) {
  const double span = key_span(layer);
  const double keys = span > 0 ? std::min(length, span) : length;
  return causal ? 0.5 * keys : keys;
}

double prefill_keys(const ModelConfig& layer, double mean_keys) {
  const double span = key_span(layer);
  if (span <= 0 || mean_keys <= 0) {
    return mean_keys;
  }
  double keys = mean_keys;
  const double length = 2 * mean_keys;
  if (layer.attention_chunk > 0 && length > layer.attention_chunk) {
    const double c = layer.attention_chunk;
    const double whole = std::floor(length / c);
    const double rest = length - whole * c;
    keys = (whole * c * c / 2 + rest * rest / 2) / length;
  }
  for (const int limit : {layer.sliding_window_layers >= 1 ? layer.sliding_window : 0, layer.sparse_topk}) {
    if (limit > 0 && length > limit) {
      keys = std::min(keys, limit - static_cast<double>(limit) * limit / (4 * mean_keys));
    }
  }
  return keys;
}

double decode_keys(const ModelConfig& layer, double context) {
  if (layer.attention_chunk > 0 && context > layer.attention_chunk) {
    // The position inside the current chunk, uniform over the chunk for a context past the first.
    const double chunk = 0.5 * (layer.attention_chunk + 1.0);
    const double span = key_span(layer);
    return std::min(chunk, span);
  }
  const double span = key_span(layer);
  return span > 0 ? std::min(context, span) : context;
}

double indexer_flops_per_pair(const ModelConfig& layer) {
  if (layer.sparse_topk <= 0) {
    return 0;
  }
  return layer.indexer_heads * (2.0 * layer.indexer_head_dim + 2.0);
}

}  // namespace dgx::llm
