// The serving ops of the token mixers that keep a recurrent state instead of a KV cache: Mamba-2 and Gated DeltaNet
// (serve_builder.hpp). A prompt runs the chunked scan of training's forward; a decoding sequence one recurrent step,
// which reads and writes its whole state and convolution state: memory-bound, as decode attention is.
#include "serve_builder.hpp"

namespace dgx::llm::detail {

namespace {

/// The causal convolution over `channels` per token on this GPU: every token of the iteration read and written, and
/// each decoding sequence's convolution state (its last conv_kernel − 1 inputs) read and written.
void serve_conv(ServeOpsBuilder& b, double channels, int kernel) {
  const StepLoad& load = b.local_;
  b.memory("conv1d", b.tokens() * channels * 2 * kBf16 + load.decode_seqs * 2 * (kernel - 1.0) * channels * kBf16);
}

/// The gated RMSNorm of the scan's output (norm(y · silu(z))): read y and z, write out_proj's input format.
void serve_gated_norm(ServeOpsBuilder& b, double width) {
  b.memory("gated_norm", b.tokens() * width * (2 * kBf16 + b.format().input_bytes()));
}

}  // namespace

void serve_mamba(ServeOpsBuilder& b) {
  const Mamba2Sizes& s = b.model_.mamba;
  const int tp = static_cast<int>(b.tp());
  const StepLoad& load = b.local_;
  const double inner = static_cast<double>(s.heads) * s.head_dim / tp;
  const double bc = 2.0 * s.groups * s.state / tp;
  const double heads = static_cast<double>(s.heads) / tp;
  const double t = b.tokens();
  b.gemm("in_proj", t, 2 * inner + bc + heads, b.hidden(), b.format());
  serve_conv(b, inner + bc, s.conv_kernel);
  // The prompt tokens of the iteration as one stream of chunks (their split into prompts is not tracked).
  b.scan("ssd_scan", ssd_forward(s, 1, load.prefill_tokens, tp));
  // selective_state_update: read and write each sequence's state; read x, B, C, dt and write y per position.
  const double rows = load.decode_seqs * load.verify;
  b.memory("ssd_step", load.decode_seqs * 2 * ssd_state_bytes(s, tp) + rows * (2 * inner + bc + heads) * kBf16);
  serve_gated_norm(b, inner);
  b.gemm("out_proj", t, b.hidden(), inner, b.format());
}

void serve_linear_attention(ServeOpsBuilder& b) {
  const LinearAttentionSizes& la = b.model_.linear_attention;
  const int tp = static_cast<int>(b.tp());
  const StepLoad& load = b.local_;
  const double key = static_cast<double>(la.key_heads) * la.key_head_dim / tp;
  const double value = static_cast<double>(la.value_heads) * la.value_head_dim / tp;
  const double heads = static_cast<double>(la.value_heads) / tp;
  const double t = b.tokens();
  b.gemm("in_proj", t, 2 * key + 2 * value + 2 * heads, b.hidden(), b.format());
  serve_conv(b, 2 * key + value, la.conv_kernel);
  // β = sigmoid(b), g = −exp(A_log)·softplus(a + dt_bias): read two BF16, write two FP32 per value head.
  b.memory("gdn_gates", t * heads * (2 * kBf16 + 2 * constants::kFp32));
  b.scan("delta_rule_scan", delta_rule_forward(la, 1, load.prefill_tokens, tp));
  // fused_recurrent_gated_delta_rule: read and write each sequence's states; read q, k, v, write o per position.
  const double rows = load.decode_seqs * load.verify;
  b.memory("delta_rule_step",
           load.decode_seqs * 2 * delta_rule_state_bytes(la, tp) + rows * (2 * key + 2 * value) * kBf16);
  serve_gated_norm(b, value);
  b.gemm("out_proj", t, b.hidden(), value, b.format());
}

}  // namespace dgx::llm::detail
