// The token mixers of a training layer that scan a recurrent state instead of attending (Megatron-core's MambaMixer,
// as Nemotron-H trains it, and its GatedDeltaNet, as Qwen3-Next's layers; sequence parallelism): a column-parallel
// input projection (heads split over TP), the depthwise causal convolution, the chunked scan (mixer_work.hpp), the
// gated RMSNorm of the output and the row-parallel output projection.
#include "dgx/llm/mixer_work.hpp"

#include "mixer_blocks.hpp"

namespace dgx::llm::detail {

namespace {

constexpr LinearNames kInProj{"in_proj",
                              "",
                              "cast_in_proj_grad",
                              "tp_all_gather_in_proj",
                              "tp_all_gather_in_proj_wgrad",
                              "tp_reduce_scatter_in_proj_grad"};
constexpr LinearNames kOutProj{
    "out_proj", "cast_out_proj_input",       "cast_out_proj_grad", "tp_all_gather_out_proj_grad",
    "",         "tp_reduce_scatter_out_proj"};

/// The causal convolution (causal_conv1d with SiLU) over `channels` per token: forward reads the input and writes
/// the output; backward reads the input and the output gradient and writes the input gradient.
void causal_conv(Builder& b, bool forward, double channels) {
  b.memory(forward, "conv1d", b.tokens() * channels / b.tp() * kBf16 * (forward ? 2 : 3));
}

/// The gated RMSNorm, norm(y · silu(z)), over `width` per token: forward reads y and z and writes the BF16 input of
/// out_proj (which casts it itself under FP8); backward reads y, z and the gradient and writes the gradients of y, z.
void gated_norm(Builder& b, bool forward, double width) {
  b.memory(forward, "gated_norm", b.tokens() * width / b.tp() * kBf16 * (forward ? 3 : 5));
}

void scan(Builder& b, bool forward, std::string_view name, const ScanWork& w) {
  b.push(
      forward,
      Op{.name = name,
         .pass = forward ? Pass::forward : Pass::backward,
         .shape = ScanShape{
             .flops = w.flops, .bytes = w.bytes, .tiles = static_cast<std::int64_t>(w.tiles), .kernels = w.kernels}});
}

}  // namespace

void mamba_block(Builder& b, const ModelConfig& model, bool forward) {
  const Mamba2Sizes& s = model.mamba;
  const double h = b.hidden();
  const double t = b.tokens();
  const double inner = static_cast<double>(s.heads) * s.head_dim;
  const double bc = 2.0 * s.groups * s.state;
  const ShapeKey& key = b.shape();
  const std::function<void(bool)> steps[] = {
      // in_proj to z and x (d_inner each), B and C (groups × state each) and dt (one per head).
      [&](bool f) { b.column(f, kInProj, t, h, 2 * inner + bc + s.heads); },
      [&](bool f) { causal_conv(b, f, inner + bc); },
      [&](bool f) {
        scan(b, f, "ssd_scan",
             f ? ssd_forward(s, key.mbs, key.seq_len, key.tp) : ssd_backward(s, key.mbs, key.seq_len, key.tp));
      },
      [&](bool f) { gated_norm(b, f, inner); },
      [&](bool f) { b.row(f, kOutProj, t, inner, h); },
  };
  Builder::run(forward, steps);
}

void linear_attention_block(Builder& b, const ModelConfig& model, bool forward) {
  const LinearAttentionSizes& la = model.linear_attention;
  const double h = b.hidden();
  const double t = b.tokens();
  const double key_width = static_cast<double>(la.key_heads) * la.key_head_dim;
  const double value_width = static_cast<double>(la.value_heads) * la.value_head_dim;
  const ShapeKey& key = b.shape();
  const std::function<void(bool)> steps[] = {
      // in_proj to q, k (key heads), v, the output gate z (value heads), β and the decay input a (one per value head).
      [&](bool f) { b.column(f, kInProj, t, h, 2 * key_width + 2 * value_width + 2.0 * la.value_heads); },
      [&](bool f) { causal_conv(b, f, 2 * key_width + value_width); },
      [&](bool f) {
        // β = sigmoid(b) and the decay g = −exp(A_log)·softplus(a + dt_bias): read two BF16, write two FP32 per
        // value head and token (backward: read them and the gradients, write two).
        const double gates = t * la.value_heads / b.tp();
        b.memory(f, "gdn_gates", gates * (f ? 2 * kBf16 + 2 * constants::kFp32 : 4 * constants::kFp32 + 2 * kBf16));
      },
      [&](bool f) {
        scan(b, f, "delta_rule_scan",
             f ? delta_rule_forward(la, key.mbs, key.seq_len, key.tp)
               : delta_rule_backward(la, key.mbs, key.seq_len, key.tp));
      },
      [&](bool f) { gated_norm(b, f, value_width); },
      [&](bool f) { b.row(f, kOutProj, t, value_width, h); },
  };
  Builder::run(forward, steps);
}

}  // namespace dgx::llm::detail
