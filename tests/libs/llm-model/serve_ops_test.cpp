#include "dgx/llm/serve_ops.hpp"

#include "catalog_fixtures.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>

using namespace dgx::llm;
using namespace dgx::llm::testing;

namespace {

const Op* find_op(const std::vector<Op>& ops, std::string_view name) {
  const auto it = std::find_if(ops.begin(), ops.end(), [&](const Op& op) { return op.name == name; });
  return it == ops.end() ? nullptr : &*it;
}

std::vector<std::string> names(const std::vector<Op>& ops) {
  std::vector<std::string> out;
  for (const Op& op : ops) {
    out.emplace_back(op.name);
  }
  return out;
}

}  // namespace

TEST_CASE("a decode iteration of a dense layer at TP2 has two all-reduces and reads every sequence's KV cache") {
  const ModelConfig m = catalog_model("llama3.1-70b");
  const SystemProfile s = catalog_system("h100-sxm");
  const ServeShape shape{.layout = {.tp = 2}, .precision = Precision::fp8, .kv_precision = Precision::fp8};
  const StepLoad load{.decode_seqs = 64, .decode_kv_tokens = 64 * 1500.0, .logit_rows = 64};
  const std::vector<Op> ops = serve_layer_ops(m, s, shape, load);
  CHECK(names(ops) == std::vector<std::string>{"norm_attn", "qkv", "rope_kv_append", "decode_attention",
                                               "cast_proj_input", "proj", "tp_all_reduce_attn", "norm_mlp", "fc1",
                                               "swiglu", "fc2", "tp_all_reduce_mlp"});
  const auto& qkv = std::get<GemmShape>(find_op(ops, "qkv")->shape);
  CHECK(qkv.m == 64);
  CHECK(qkv.n == 5120);  // (8192 + 2 · 8 · 128) / 2
  CHECK(qkv.k == 8192);
  CHECK(find_op(ops, "qkv")->precision == Precision::fp8);
  // K and V of 4 KV heads of 128 per rank, one byte each, for every cached token.
  const auto& attention = std::get<MemoryShape>(find_op(ops, "decode_attention")->shape);
  CHECK(attention.bytes == doctest::Approx(64 * 1500.0 * 2 * 4 * 128 + 64 * 32 * 128 * 4));
  const auto& reduce = std::get<CollectiveShape>(find_op(ops, "tp_all_reduce_mlp")->shape);
  CHECK(reduce.collective == Collective::all_reduce);
  CHECK(reduce.bytes == 64 * 8192 * 2);
  CHECK(kv_bytes_per_token(m, shape) == 2.0 * 80 * 4 * 128);
}

TEST_CASE("a prompt chunk adds flash attention over the prompt, TP1 has no communication") {
  const ModelConfig m = catalog_model("llama3.1-8b");
  const ServeShape shape{.layout = {.tp = 1}};
  const StepLoad load{.prefill_tokens = 1024, .prefill_pairs = 1024 * 512.5, .logit_rows = 1};
  const std::vector<Op> ops = serve_layer_ops(m, catalog_system("h100-sxm"), shape, load);
  const auto& attention = std::get<AttentionShape>(find_op(ops, "attention")->shape);
  CHECK(attention.q_len == 1024);
  CHECK(attention.kv_len == 513);
  CHECK(attention.heads == 32);
  CHECK(attention.kv_heads == 8);
  CHECK(find_op(ops, "decode_attention") == nullptr);
  CHECK(find_op(ops, "tp_all_reduce_attn") == nullptr);
  CHECK(find_op(ops, "cast_proj_input") == nullptr);  // BF16 GEMMs take the attention output as it is
}

TEST_CASE("KV heads are replicated when TP exceeds them, and stages hold ceil(layers / pp)") {
  const ModelConfig m = catalog_model("llama3.1-405b");
  const RankShape r = rank_shape(m, {.tp = 16, .pp = 4});
  CHECK(r.heads == 8);
  CHECK(r.kv_heads == 1);
  CHECK(r.stage_layers == 32);  // 126 layers over 4 stages
}

TEST_CASE("a MoE layer routes tokens to grouped expert GEMMs over the experts a small batch hits") {
  const ModelConfig m = catalog_model("mixtral-8x7b");
  const SystemProfile s = catalog_system("h100-sxm");
  const ServeShape shape{.layout = {.tp = 2, .pp = 1, .ep = 2}};
  const auto one = serve_layer_ops(m, s, shape, StepLoad{.decode_seqs = 1, .decode_kv_tokens = 100, .logit_rows = 1});
  const auto& fc1 = std::get<GemmShape>(find_op(one, "expert_fc1")->shape);
  CHECK(fc1.groups == 1);  // one token hits 2 of 8 experts: on average half of one of this rank's 4
  CHECK(fc1.n == 2 * 14336);
  const auto many =
      serve_layer_ops(m, s, shape, StepLoad{.decode_seqs = 256, .decode_kv_tokens = 256 * 100.0, .logit_rows = 256});
  CHECK(std::get<GemmShape>(find_op(many, "expert_fc1")->shape).groups == 4);
  CHECK(find_op(many, "router") != nullptr);
}

TEST_CASE("the last stage computes logits in BF16 and samples, hand-offs only exist with stages") {
  const ModelConfig m = catalog_model("llama3.1-70b");
  const SystemProfile s = catalog_system("h100-sxm");
  const StepLoad load{.decode_seqs = 8, .decode_kv_tokens = 800, .logit_rows = 8};
  const auto last = serve_last_stage_ops(m, s, {.layout = {.tp = 2}, .precision = Precision::fp8}, load);
  CHECK(find_op(last, "lm_head")->precision == Precision::bf16);
  CHECK(std::get<GemmShape>(find_op(last, "lm_head")->shape).n == 64128);
  CHECK(find_op(last, "sampling") != nullptr);
  CHECK(serve_handoff_ops(m, s, {.layout = {.tp = 2}}, load).empty());
  const auto handoff = serve_handoff_ops(m, s, {.layout = {.tp = 2, .pp = 2}}, load);
  REQUIRE(handoff.size() == 1);
  CHECK(handoff[0].group == CommGroup::pp);
}
