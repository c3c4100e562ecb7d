#include "dgx/llm/serve_ops.hpp"

#include "dgx/llm/communication.hpp"
#include "dgx/llm/mixer_work.hpp"

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

TEST_CASE("MLA caches its compressed latent: DeepSeek's KV per token is layers x (512 + 64) whatever the TP") {
  const ModelConfig m = catalog_model("deepseek-v3");
  ServeShape shape{.layout = {.tp = 8, .pp = 1, .ep = 8}, .precision = Precision::fp8, .kv_precision = Precision::fp8};
  CHECK(kv_bytes_per_token(m, shape) == doctest::Approx(61.0 * (512 + 64)));
  shape.layout.attention_dp = true;
  CHECK(kv_bytes_per_token(m, shape) == doctest::Approx(61.0 * (512 + 64)));
  // The GQA expansion (128 KV heads of 192) would be 2 * 128 * 192 / 576 = 85x larger.
  const SystemProfile s = catalog_system("h200-sxm");
  const StepLoad load{.decode_seqs = 64, .decode_kv_tokens = 64 * 1500.0, .logit_rows = 64};
  const std::vector<Op> ops = serve_layer_ops(m, s, shape, load, LayerKind::moe);
  for (const char* name : {"mla_fused_a", "q_b", "mla_absorb_q", "mla_absorb_v", "proj"}) {
    CHECK_MESSAGE(find_op(ops, name) != nullptr, name);
  }
  CHECK(find_op(ops, "kv_b") == nullptr);  // decoding absorbs the up-projection; only prompt chunks expand it
}

TEST_CASE("with attention DP each GPU attends to its own requests and every MoE layer dispatches and combines over "
          "all GPUs") {
  const ModelConfig m = catalog_model("deepseek-v3");
  const SystemProfile s = catalog_system("h200-sxm");
  const ServeShape dep8{.layout = {.tp = 8, .pp = 1, .ep = 8, .attention_dp = true},
                        .precision = Precision::fp8,
                        .kv_precision = Precision::fp8};
  const StepLoad load{.decode_seqs = 256, .decode_kv_tokens = 256 * 1500.0, .logit_rows = 256};
  const std::vector<Op> moe = serve_layer_ops(m, s, dep8, load, LayerKind::moe);
  CHECK(find_op(moe, "tp_all_reduce_attn") == nullptr);
  CHECK(find_op(moe, "tp_all_reduce_mlp") == nullptr);
  REQUIRE(find_op(moe, "ep_dispatch") != nullptr);
  REQUIRE(find_op(moe, "ep_combine") != nullptr);
  const auto& dispatch = std::get<CollectiveShape>(find_op(moe, "ep_dispatch")->shape);
  CHECK(dispatch.collective == Collective::all_to_all);
  CHECK(dispatch.placement.ranks == 8);
  CHECK(dispatch.bytes == doctest::Approx(256.0 / 8 * 8 * 7168));  // its 32 requests' 8 copies, FP8
  // All 128 heads on every GPU, over its 32 requests.
  const auto& q_b = std::get<GemmShape>(find_op(moe, "q_b")->shape);
  CHECK(q_b.m == 32);
  CHECK(q_b.n == 128 * 192);
  // The experts see every rank's tokens: 256 x 8 copies over 8 ranks.
  const auto& fc1 = std::get<GemmShape>(find_op(moe, "expert_fc1")->shape);
  CHECK(static_cast<double>(fc1.m * fc1.groups) == doctest::Approx(256.0).epsilon(0.05));
  // The first three layers are dense: their MLP is replicated, no all-to-all.
  const std::vector<Op> dense = serve_layer_ops(m, s, dep8, load, LayerKind::dense);
  CHECK(find_op(dense, "ep_dispatch") == nullptr);
  CHECK(std::get<GemmShape>(find_op(dense, "fc1")->shape).n == 2 * 18432);
  // Beyond the NVLink domain the dispatch crosses the network.
  ServeShape dep16 = dep8;
  dep16.layout.tp = dep16.layout.ep = 16;
  const auto wide = serve_layer_ops(m, s, dep16, load, LayerKind::moe);
  CHECK(std::get<CollectiveShape>(find_op(wide, "ep_dispatch")->shape).placement.spans_domains());
}

TEST_CASE("a decode all-reduce of a few kB is one-shot: two NVLink hops instead of the ring's fourteen") {
  const ModelConfig m = catalog_model("llama3.1-70b");
  const SystemProfile s = catalog_system("h100-sxm");
  const ServeShape shape{.layout = {.tp = 8}, .precision = Precision::fp8, .kv_precision = Precision::fp8};
  const StepLoad one{.decode_seqs = 1, .decode_kv_tokens = 1500, .logit_rows = 1};
  const std::vector<Op> ops = serve_layer_ops(m, s, shape, one);
  const Op* small = find_op(ops, "tp_all_reduce_mlp");
  REQUIRE(small != nullptr);
  const auto& c = std::get<CollectiveShape>(small->shape);
  CHECK(c.one_sided);
  CHECK(c.bytes == 8192 * 2);
  const double seconds = collective_seconds(s, c.collective, c.bytes, c.placement, 1, c.one_sided);
  CHECK(seconds == doctest::Approx(2e-6 + 16384.0 * 7 / (450e9 * 0.88)));
  // A prefill chunk's 8192 tokens (128 MiB) take NCCL's ring.
  const StepLoad chunk{.prefill_tokens = 8192, .prefill_pairs = 8192 * 4096.0, .logit_rows = 1};
  CHECK_FALSE(
      std::get<CollectiveShape>(find_op(serve_layer_ops(m, s, shape, chunk), "tp_all_reduce_mlp")->shape).one_sided);
}

namespace {
ModelConfig serve_group(const ModelConfig& model, Mixer mixer) {
  for (const LayerGroup& g : model.layer_groups) {
    if (g.mixer == mixer) {
      return serve_view(model, g);
    }
  }
  FAIL("no such group");
  return model;
}
}  // namespace

TEST_CASE("a Mamba-2 layer decodes by reading and writing each sequence's FP32 state, and scans a prompt's chunks") {
  const ModelConfig m = serve_group(fixture_model("nemotron-h-8b-like"), Mixer::mamba2);
  const SystemProfile s = catalog_system("h100-sxm");
  const ServeShape shape{.layout = {.tp = 2}, .precision = Precision::fp8, .kv_precision = Precision::fp8};
  const std::vector<Op> decode =
      serve_layer_ops(m, s, shape, StepLoad{.decode_seqs = 32, .decode_kv_tokens = 32 * 5000.0, .logit_rows = 32});
  CHECK(names(decode) == std::vector<std::string>{"norm_mixer", "in_proj", "conv1d", "ssd_step", "gated_norm",
                                                  "out_proj", "tp_all_reduce_mixer"});
  // 32 sequences × (read + write) × (64 heads × 64 × 128 FP32 + 3 × (4096 + 1024) BF16 conv state), whatever their
  // context; plus x, B, C, dt read and y written per position.
  const double state = 64.0 * 64 * 128 * 4 + 3.0 * (4096 + 1024) * 2;
  const double io = 32.0 * (2 * 4096 + 1024 + 64) * 2;
  CHECK(std::get<MemoryShape>(find_op(decode, "ssd_step")->shape).bytes == doctest::Approx(32 * 2 * state + io));
  const std::vector<Op> prefill =
      serve_layer_ops(m, s, shape, StepLoad{.prefill_tokens = 4096, .prefill_pairs = 4096 * 2048.5, .logit_rows = 1});
  const Op* scan = find_op(prefill, "ssd_scan");
  REQUIRE(scan != nullptr);
  CHECK(std::get<ScanShape>(scan->shape).flops == doctest::Approx(ssd_forward(m.mamba, 1, 4096, 2).flops));
  CHECK(std::get<GemmShape>(find_op(prefill, "in_proj")->shape).n == (2 * 8192 + 2 * 8 * 128 + 128) / 2);
}

TEST_CASE(
    "a Gated DeltaNet layer decodes by a recurrent step over its dk × dv states, with its gated attention beside") {
  const ModelConfig model = fixture_model("qwen3.5-27b-like");
  const ModelConfig linear = serve_group(model, Mixer::linear_attention);
  const SystemProfile s = catalog_system("h100-sxm");
  const ServeShape shape{.layout = {.tp = 4}, .precision = Precision::fp8, .kv_precision = Precision::fp8};
  const StepLoad load{.decode_seqs = 8, .decode_kv_tokens = 8 * 3000.0, .logit_rows = 8};
  const std::vector<Op> ops = serve_layer_ops(linear, s, shape, load);
  CHECK(names(ops) == std::vector<std::string>{"norm_mixer", "in_proj", "conv1d", "gdn_gates", "delta_rule_step",
                                               "gated_norm", "out_proj", "tp_all_reduce_mixer", "norm_mlp", "fc1",
                                               "swiglu", "fc2", "tp_all_reduce_mlp"});
  const double state = delta_rule_state_bytes(linear.linear_attention, 4);
  CHECK(std::get<MemoryShape>(find_op(ops, "delta_rule_step")->shape).bytes ==
        doctest::Approx(8 * 2 * state + 8 * (2 * 512 + 2 * 1536) * 2.0));
  // The gated attention layers: the query projection twice as wide, the gate after the attention.
  const std::vector<Op> attention = serve_layer_ops(serve_group(model, Mixer::attention), s, shape, load);
  CHECK(std::get<GemmShape>(find_op(attention, "qkv")->shape).n == (24 * 256 + 2 * 4 * 256 + 24 * 256) / 4);
  CHECK(find_op(attention, "output_gate") != nullptr);
}

TEST_CASE("a sliding-window layer's decode reads at most its window of each sequence, its prompt tokens fewer keys") {
  const ModelConfig gpt_oss = catalog_model("gpt-oss-120b");
  const std::vector<LayerGroup> groups = serve_layer_groups(gpt_oss);
  REQUIRE(groups.size() == 2);
  CHECK(groups[0].count == 18);
  CHECK(groups[0].window == 0);
  CHECK(groups[1].count == 18);
  CHECK(groups[1].window == 128);
  const ModelConfig windowed = serve_view(gpt_oss, groups[1]);
  const StepLoad load{
      .decode_seqs = 10, .decode_kv_tokens = 10 * 3000.0, .prefill_tokens = 1000, .prefill_pairs = 1000 * 2000.0};
  const StepLoad seen = attended(windowed, load);
  CHECK(seen.decode_kv_tokens == 10 * 128);
  CHECK(seen.prefill_pairs == doctest::Approx(1000 * (128 - 128.0 * 128 / (4 * 2000))));
  CHECK(attended(serve_view(gpt_oss, groups[0]), load).decode_kv_tokens == 10 * 3000.0);
  // A model without windowed layers is one group, served as before.
  CHECK(serve_layer_groups(catalog_model("llama3.1-70b")).size() == 1);
  CHECK_FALSE(serves_by_group(catalog_model("llama3.1-70b")));
}
