#include "dgx/llm/mixer_work.hpp"

#include "catalog_fixtures.hpp"

#include <doctest/doctest.h>

using namespace dgx::llm;

namespace {
/// A tiny Mamba-2: 4 heads of 2, state 3, 2 groups, chunks of 4.
constexpr Mamba2Sizes kMamba{.heads = 4, .head_dim = 2, .state = 3, .groups = 2, .conv_kernel = 4, .chunk = 4};
/// A tiny Gated DeltaNet: 1 key head, 2 value heads, dk 2, dv 3.
constexpr LinearAttentionSizes kDelta{
    .key_heads = 1, .value_heads = 2, .key_head_dim = 2, .value_head_dim = 3, .conv_kernel = 4};
}  // namespace

TEST_CASE("Mamba-2's chunked scan counts each SSD product by hand on a sequence of a whole and a partial chunk") {
  // 6 tokens = chunks of 4 and 2: Σq² = 20. Intra-chunk 2·Σq²·(G·N + H·P) = 40·(6 + 8) = 560; states and their
  // output 2·T·H·P·N = 2·6·24 = 288 each; state passing 2 chunks · 2·24 = 96.
  const ScanWork forward = ssd_forward(kMamba, 1, 6);
  CHECK(forward.flops == doctest::Approx(560 + 288 + 288 + 96));
  CHECK(forward.tiles == 2 * 4);
  // The backward: twice the products, and the recomputed states and their passing.
  CHECK(ssd_backward(kMamba, 1, 6).flops == doctest::Approx(2 * 1232 + 288 + 96));
  // TP halves heads and groups, so every term.
  CHECK(ssd_forward(kMamba, 1, 6, 2).flops == doctest::Approx(1232 / 2.0));
  CHECK(ssd_forward(kMamba, 3, 6).flops == doctest::Approx(3 * 1232));
}

TEST_CASE("Mamba-2 decoding keeps an FP32 state and the convolution's last inputs, and steps in 5 FLOPs per state") {
  // 4·2·3 state elements × 4 B + (4 − 1) × (x 8 + B, C 2·2·3) × 2 B.
  CHECK(ssd_state_bytes(kMamba) == doctest::Approx(96 + 3 * 20 * 2));
  CHECK(ssd_step_flops(kMamba) == doctest::Approx(5 * 24));
}

TEST_CASE("Gated DeltaNet's chunked delta rule counts the WY form's products by hand") {
  // 65 tokens = chunks of 64 and 1 (Σc² = 4097, Σc³ = 262145), per value head: β·K·Kᵀ 2·4097·2, the solve
  // 2·262145/3, W and U 2·4097·(2 + 3), the masked output 2·4097·(2 + 3); per token and head 6·dk·dv = 36.
  const double local = 2 * (2.0 * 4097 * 2 + 2.0 * 262145 / 3 + 2 * (2.0 * 4097 * 5));
  const double state = 65 * 2 * 36.0;
  CHECK(delta_rule_forward(kDelta, 1, 65).flops == doctest::Approx(local + state));
  // Backward: twice the forward, and the recomputed W, U and states (4 of 6 per state element).
  const double wu = 2 * 2.0 * 4097 * 5;
  CHECK(delta_rule_backward(kDelta, 1, 65).flops == doctest::Approx(2 * (local + state) + wu + state * 4 / 6));
  CHECK(delta_rule_forward(kDelta, 1, 65, 2).flops == doctest::Approx((local + state) / 2));
}

TEST_CASE("Gated DeltaNet decoding keeps a dk × dv FP32 state per value head and the q, k, v convolution inputs") {
  CHECK(delta_rule_state_bytes(kDelta) == doctest::Approx(2 * 6 * 4 + 3 * (2 * 2 + 6) * 2));
  CHECK(delta_rule_step_flops(kDelta) == doctest::Approx(7 * 12));
}

TEST_CASE("an attention query sees its window, its chunk or its top-k, and the causal convention halves them") {
  ModelConfig layer = dgx::llm::testing::catalog_model("llama3.1-8b");
  CHECK(attention_keys_per_query(layer, 4096, false) == 4096);
  CHECK(attention_keys_per_query(layer, 4096, true) == 2048);
  layer.sliding_window = 128;
  layer.sliding_window_layers = 0.5;  // a share is the training model's mask, not one layer's window
  CHECK(attention_keys_per_query(layer, 4096, false) == 4096);
  layer.sliding_window_layers = 1;
  CHECK(attention_keys_per_query(layer, 4096, false) == 128);
  CHECK(attention_keys_per_query(layer, 4096, true) == 64);
  CHECK(decode_keys(layer, 1000) == 128);
  CHECK(decode_keys(layer, 100) == 100);
  layer.sliding_window = 0;
  layer.attention_chunk = 8192;
  CHECK(attention_keys_per_query(layer, 4096, false) == 4096);
  CHECK(decode_keys(layer, 5000) == 5000);
  CHECK(decode_keys(layer, 10000) == doctest::Approx(4096.5));
  layer.attention_chunk = 0;
  layer.sparse_topk = 2048;
  layer.indexer_heads = 64;
  layer.indexer_head_dim = 128;
  CHECK(attention_keys_per_query(layer, 8192, false) == 2048);
  CHECK(decode_keys(layer, 100000) == 2048);
  CHECK(indexer_flops_per_pair(layer) == 64 * (2 * 128 + 2));
}
