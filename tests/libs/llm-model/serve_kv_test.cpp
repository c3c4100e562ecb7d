#include "dgx/llm/serve_kv.hpp"

#include "dgx/llm/mixer_work.hpp"

#include "catalog_fixtures.hpp"

#include <doctest/doctest.h>

using namespace dgx::llm;
using namespace dgx::llm::testing;

TEST_CASE("a plain decoder's request keeps KV in proportion to its tokens, as kv_bytes_per_token counts it") {
  const ModelConfig m = catalog_model("llama3.1-70b");
  const ServeShape shape{.layout = {.tp = 2}, .precision = Precision::fp8, .kv_precision = Precision::fp8};
  const KvFootprint kv = kv_footprint(m, shape);
  CHECK(kv.proportional());
  CHECK(kv.per_token == kv_bytes_per_token(m, shape));
  CHECK(kv.per_token == 80.0 * 2 * 4 * 128);  // 80 layers × K and V × 4 KV heads per GPU × 128 × 1 B
  CHECK(kv.bytes(1000) == 1000 * kv.per_token);
}

TEST_CASE("a hybrid's request keeps its attention layers' KV per token and its Mamba-2 states once") {
  const ModelConfig m = fixture_model("nemotron-h-8b-like");
  const ServeShape shape{.layout = {.tp = 2}, .precision = Precision::bf16, .kv_precision = Precision::bf16};
  const KvFootprint kv = kv_footprint(m, shape);
  CHECK_FALSE(kv.proportional());
  CHECK(kv.per_token == doctest::Approx(4 * 2.0 * 4 * 128 * 2));  // 4 attention layers, 4 KV heads per GPU
  CHECK(kv.per_sequence == doctest::Approx(24 * ssd_state_bytes(m.mamba, 2)));
  CHECK(kv.bytes(8000) == doctest::Approx(8000 * kv.per_token + kv.per_sequence));
  // Decoding reads every token's KV and each sequence's state.
  CHECK(kv.read_bytes(10, 10 * 8000.0) == doctest::Approx(10 * kv.bytes(8000)));
  // Two stages: the fullest holds its share of each group (26 of 52 layers: 12 Mamba-2, 2 attention).
  ServeShape pp2 = shape;
  pp2.layout.pp = 2;
  CHECK(kv_footprint(m, pp2).per_sequence == doctest::Approx(kv.per_sequence / 2));
}

TEST_CASE("a sliding-window layer keeps at most its window of a request, a Gated DeltaNet layer a fixed state") {
  const ModelConfig gpt_oss = catalog_model("gpt-oss-120b");
  const ServeShape shape{.layout = {.tp = 1}, .precision = Precision::bf16, .kv_precision = Precision::bf16};
  const KvFootprint kv = kv_footprint(gpt_oss, shape);
  const double layer = 2.0 * 8 * 64 * 2;  // K and V, 8 KV heads of 64, BF16
  CHECK(kv.per_token == doctest::Approx(18 * layer));
  REQUIRE(kv.capped.size() == 1);
  CHECK(kv.capped[0].tokens == 128);
  CHECK(kv.bytes(10000) == doctest::Approx(10000 * 18 * layer + 128 * 18 * layer));
  CHECK(kv.bytes(100) == doctest::Approx(100 * 36 * layer));
  const ModelConfig qwen = fixture_model("qwen3.5-27b-like");
  const KvFootprint q = kv_footprint(qwen, shape);
  CHECK(q.per_token == doctest::Approx(16 * 2.0 * 4 * 256 * 2));
  CHECK(q.per_sequence == doctest::Approx(48 * delta_rule_state_bytes(qwen.linear_attention)));
}
