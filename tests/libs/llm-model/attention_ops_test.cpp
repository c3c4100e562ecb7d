// The attention blocks of a training layer (attention_ops.cpp, through layer_ops.hpp): the output gate, chunked local
// attention, DSA's sparse core and lightning indexer.
#include "dgx/llm/layer_ops.hpp"
#include "dgx/llm/memory_model.hpp"

#include "catalog_fixtures.hpp"
#include "op_checks.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace dgx::llm;
using dgx::llm::testing::catalog_model;
using dgx::llm::testing::catalog_system;
using dgx::llm::testing::gemm_flops_of;
using dgx::llm::testing::has_op;
using dgx::llm::testing::op_named;

namespace {
double attention_mask(const OpList& ops) {
  return std::get<AttentionShape>(op_named(ops.forward, "attention", Pass::forward)->shape).mask_fraction;
}
}  // namespace

TEST_CASE("an output gate widens the query projection by the query width and gates the attention output") {
  ModelConfig m = catalog_model("llama3.1-8b");
  const ShapeKey shape{.tp = 2, .mbs = 1, .seq_len = 4096};
  const SystemProfile h100 = catalog_system("h100-sxm");
  const OpList plain = transformer_layer_ops(m, h100, shape);
  m.attention_output_gate = true;
  const OpList gated = transformer_layer_ops(m, h100, shape);
  CHECK(std::get<GemmShape>(op_named(gated.forward, "qkv", Pass::forward)->shape).n ==
        std::get<GemmShape>(op_named(plain.forward, "qkv", Pass::forward)->shape).n + 4096 / 2);
  REQUIRE(op_named(gated.forward, "output_gate", Pass::forward) != nullptr);
  CHECK(std::get<MemoryShape>(op_named(gated.forward, "output_gate", Pass::forward)->shape).bytes ==
        doctest::Approx(4096.0 * 4096 / 2 * 2 * 3));
  CHECK(op_named(plain.forward, "output_gate", Pass::forward) == nullptr);
  // The gate is kept for the backward.
  CHECK(layer_activation_bytes(m, shape) - layer_activation_bytes(catalog_model("llama3.1-8b"), shape) ==
        doctest::Approx(4096.0 * 4096 / 2 * 2));
}

TEST_CASE("chunked local attention computes the causal blocks of its chunks, DSA the top-k keys of each query") {
  ModelConfig m = catalog_model("llama3.1-8b");
  const SystemProfile h100 = catalog_system("h100-sxm");
  const ShapeKey shape{.mbs = 1, .seq_len = 32768};
  const double causal = attention_mask(transformer_layer_ops(m, h100, shape));
  CHECK(causal == doctest::Approx(0.5 * (1 + 128.0 / 32768)));
  m.attention_chunk = 8192;
  CHECK(attention_mask(transformer_layer_ops(m, h100, shape)) == doctest::Approx(0.5 * (8192 + 128.0) / 32768));
  m.attention_chunk = 0;
  m.sparse_topk = 2048;
  m.indexer_heads = 64;
  m.indexer_head_dim = 128;
  const OpList sparse = transformer_layer_ops(m, h100, shape);
  const double k = 2048, s = 32768;
  CHECK(attention_mask(sparse) == doctest::Approx((k * (k + 1) / 2 + (s - k) * k) / (s * s)));
  // The indexer scores every earlier key of every query, all heads in one FP8 kernel.
  const Op* scores = op_named(sparse.forward, "indexer_scores", Pass::forward);
  REQUIRE(scores != nullptr);
  CHECK(scores->precision == Precision::fp8);
  const auto& g = std::get<GemmShape>(scores->shape);
  CHECK(2.0 * g.m * g.n * g.k == doctest::Approx(2.0 * 32768 * (s + 1) / 2 * 64 * 128).epsilon(1e-4));
  CHECK(op_named(sparse.forward, "indexer_topk", Pass::forward) != nullptr);
  CHECK(op_named(sparse.backward, "indexer_loss", Pass::backward) != nullptr);
  // A GPU without FP8 tensor cores scores in BF16.
  const OpList a100 = transformer_layer_ops(m, catalog_system("a100-sxm-80gb"), shape);
  CHECK(op_named(a100.forward, "indexer_scores", Pass::forward)->precision == Precision::bf16);
}
