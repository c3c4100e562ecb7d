#include "dgx/llm/layer_ops.hpp"

#include "dgx/llm/flops.hpp"

#include "catalog_fixtures.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace dgx::llm;
using dgx::llm::testing::catalog_model;
using dgx::llm::testing::catalog_system;

namespace {
double gemm_flops(const std::vector<Op>& ops, bool include_recompute = true) {
  double flops = 0;
  for (const Op& op : ops) {
    if (const auto* g = std::get_if<GemmShape>(&op.shape); g && (include_recompute || !op.recompute)) {
      flops += 2.0 * g->m * g->n * g->k * g->groups;
    }
  }
  return flops;
}
std::size_t count(const std::vector<Op>& ops, std::string_view name) {
  return static_cast<std::size_t>(std::count_if(ops.begin(), ops.end(), [&](const Op& op) { return op.name == name; }));
}
const Op* find_op(const std::vector<Op>& ops, std::string_view name, Pass pass) {
  const auto it =
      std::find_if(ops.begin(), ops.end(), [&](const Op& op) { return op.name == name && op.pass == pass; });
  return it == ops.end() ? nullptr : &*it;
}
}  // namespace

TEST_CASE("per-rank GEMM shapes: QKV and fc1 split their outputs over TP, proj and fc2 their inputs") {
  const ModelConfig m = catalog_model("llama3.1-70b");
  const OpList ops =
      transformer_layer_ops(m, catalog_system("h100-sxm"), ShapeKey{.tp = 4, .cp = 2, .mbs = 1, .seq_len = 8192});
  const auto& qkv = std::get<GemmShape>(find_op(ops.forward, "qkv", Pass::forward)->shape);
  CHECK(qkv.m == 4096);  // mbs × seq / cp tokens
  CHECK(qkv.n == (8192 + 2 * 128 * 8) / 4);
  CHECK(qkv.k == 8192);
  const auto& fc2 = std::get<GemmShape>(find_op(ops.forward, "fc2", Pass::forward)->shape);
  CHECK(fc2.k == 28672 / 4);
  const auto& fc1_wgrad = std::get<GemmShape>(find_op(ops.backward, "fc1", Pass::wgrad)->shape);
  CHECK(fc1_wgrad.m == 2 * 28672 / 4);
  CHECK(fc1_wgrad.k == 4096);
}

TEST_CASE("the layer's GEMM FLOPs over all TP ranks equal the model FLOPs formula's per-layer GEMM part") {
  for (const char* name : {"llama3.1-8b", "gpt3-20b", "nemotron4-15b", "mixtral-8x7b"}) {
    CAPTURE(name);
    const ModelConfig m = catalog_model(name);
    const int tp = 2;
    const ShapeKey shape{.tp = tp, .cp = 1, .ep = m.moe() ? 2 : 1, .mbs = 1, .seq_len = m.seq_len};
    const OpList ops = transformer_layer_ops(m, catalog_system("h100-sxm"), shape);
    // Formula without LM head and attention core, per layer: s·(12h²(1 + g/a) + 6·matrices·ffn·h·k) · EP ranks'
    // tokens are the ep-fold of one rank's.
    ModelConfig no_vocab = m;
    no_vocab.vocab = 0;
    const double s = m.seq_len;
    const double core = s * 12.0 * static_cast<double>(m.hidden) * s;  // per layer, full attention
    const double per_layer = (model_flops_per_sequence(no_vocab, m.seq_len) - m.layers * core) / m.layers;
    const double router = m.moe() ? 6.0 * s * static_cast<double>(m.hidden) * m.experts : 0.0;
    const double ranks = tp;  // the EP ranks each process their own tokens' share
    CHECK((gemm_flops(ops.forward) + gemm_flops(ops.backward)) * ranks == doctest::Approx(per_layer + router));
  }
}

TEST_CASE("TP, CP and EP communication appear only when their groups have more than one rank") {
  const SystemProfile h100 = catalog_system("h100-sxm");
  const ModelConfig dense = catalog_model("llama3.1-8b");
  const OpList single = transformer_layer_ops(dense, h100, ShapeKey{.tp = 1, .cp = 1, .mbs = 1, .seq_len = 8192});
  CHECK(std::none_of(single.forward.begin(), single.forward.end(), [](const Op& op) { return op.is_communication(); }));
  const OpList split = transformer_layer_ops(dense, h100, ShapeKey{.tp = 2, .cp = 2, .mbs = 1, .seq_len = 8192});
  CHECK(count(split.forward, "tp_all_gather_qkv") == 1);
  CHECK(count(split.forward, "tp_reduce_scatter_fc2") == 1);
  CHECK(count(split.forward, "cp_kv_exchange") == 1);
  CHECK(count(split.backward, "tp_all_gather_fc1_wgrad") == 1);
  const OpList moe = transformer_layer_ops(catalog_model("mixtral-8x7b"), h100,
                                           ShapeKey{.tp = 1, .cp = 1, .ep = 8, .mbs = 1, .seq_len = 4096});
  CHECK(count(moe.forward, "ep_dispatch") == 1);
  CHECK(count(moe.backward, "ep_combine") == 1);
  CHECK(std::get<GemmShape>(find_op(moe.forward, "expert_fc1", Pass::forward)->shape).groups == 1);
}

TEST_CASE("FP8 adds cast ops and keeps the attention core in BF16") {
  const SystemProfile h100 = catalog_system("h100-sxm");
  const ModelConfig m = catalog_model("llama3.1-8b");
  const OpList fp8 = transformer_layer_ops(m, h100, ShapeKey{.mbs = 1, .seq_len = 8192, .precision = Precision::fp8});
  const OpList bf16 = transformer_layer_ops(m, h100, ShapeKey{.mbs = 1, .seq_len = 8192});
  CHECK(count(fp8.forward, "cast_fc2_input") == 1);
  CHECK(count(fp8.backward, "cast_fc1_grad") == 1);
  CHECK(count(bf16.forward, "cast_fc2_input") == 0);
  CHECK(find_op(fp8.forward, "fc1", Pass::forward)->precision == Precision::fp8);
  CHECK(find_op(fp8.forward, "attention", Pass::forward)->precision == Precision::bf16);
}

TEST_CASE("recompute: selective reruns the attention core, full reruns the whole forward") {
  const SystemProfile h100 = catalog_system("h100-sxm");
  const ModelConfig m = catalog_model("llama3.1-8b");
  ShapeKey shape{.tp = 2, .mbs = 1, .seq_len = 8192};
  const OpList none = transformer_layer_ops(m, h100, shape);
  shape.recompute = Recompute::selective;
  const OpList selective = transformer_layer_ops(m, h100, shape);
  shape.recompute = Recompute::full;
  const OpList full = transformer_layer_ops(m, h100, shape);
  CHECK(selective.backward.size() == none.backward.size() + 1);
  CHECK(selective.backward.front().name == "attention");
  CHECK(selective.backward.front().recompute);
  CHECK(full.backward.size() == none.backward.size() + none.forward.size());
  CHECK(gemm_flops(full.backward) == doctest::Approx(gemm_flops(none.backward) + gemm_flops(none.forward)));
}

TEST_CASE("the output stage holds the LM head over the vocabulary shard and the loss") {
  const ModelConfig m = catalog_model("nemotron-8b");
  const OpList out = output_ops(m, catalog_system("h100-sxm"), ShapeKey{.tp = 2, .mbs = 4, .seq_len = 4096});
  const auto& head = std::get<GemmShape>(find_op(out.forward, "lm_head", Pass::forward)->shape);
  CHECK(head.n == 256000 / 2);
  CHECK(head.m == 4 * 4096);
  CHECK(count(out.forward, "cross_entropy") == 1);
  CHECK(count(out.backward, "cross_entropy") == 1);
  const OpList in = embedding_ops(m, catalog_system("h100-sxm"), ShapeKey{.tp = 2, .mbs = 4, .seq_len = 4096});
  CHECK(count(in.backward, "embedding") == 1);
}

TEST_CASE("MLA, shared experts and wide heads: the layer's GEMM FLOPs over all ranks equal the formula's part") {
  for (const char* name : {"deepseek-v3", "qwen3-235b-a22b", "gpt-oss-120b"}) {
    CAPTURE(name);
    ModelConfig m = catalog_model(name);
    m.dense_layers = 0;  // every layer the MoE layer the ops describe
    m.mtp_layers = 0;
    m.sliding_window = 0;
    m.vocab = 0;
    const int tp = 4;
    const ShapeKey shape{.tp = tp, .cp = 1, .ep = 8, .mbs = 1, .seq_len = m.seq_len};
    const OpList ops = transformer_layer_ops(m, catalog_system("gb200-nvl72"), shape);
    const double s = m.seq_len;
    const double core = 6.0 * s * s * m.heads * static_cast<double>(m.head_dim() + m.value_dim());
    const double per_layer = (model_flops_per_sequence(m, m.seq_len) - m.layers * core) / m.layers;
    const double router = 6.0 * s * static_cast<double>(m.hidden) * m.experts;
    CHECK((gemm_flops(ops.forward) + gemm_flops(ops.backward)) * tp == doctest::Approx(per_layer + router));
  }
}

TEST_CASE("MLA projects through its latents: replicated down-projections, TP-split up-projections, no fused QKV") {
  const ModelConfig m = catalog_model("deepseek-v3");
  const OpList ops = transformer_layer_ops(m, catalog_system("h100-sxm"), ShapeKey{.tp = 8, .mbs = 1, .seq_len = 4096});
  CHECK(find_op(ops.forward, "qkv", Pass::forward) == nullptr);
  const auto& kv_down = std::get<GemmShape>(find_op(ops.forward, "kv_down", Pass::forward)->shape);
  CHECK(kv_down.m == 4096 / 8);  // the sequence shard
  CHECK(kv_down.n == 512 + 64);  // the latent and the shared rotary key
  const auto& kv_up = std::get<GemmShape>(find_op(ops.forward, "kv_up", Pass::forward)->shape);
  CHECK(kv_up.n == 128 * (128 + 128) / 8);
  CHECK(count(ops.forward, "tp_all_gather_kv_latent") == 1);
  CHECK(count(ops.forward, "shared_fc1") == 1);  // the shared expert runs on every token
  const auto& attention = std::get<AttentionShape>(find_op(ops.forward, "attention", Pass::forward)->shape);
  CHECK(attention.kv_heads == 128 / 8);
  CHECK(attention.head_dim == (192 + 128) / 2);
  // The leading dense layers run a dense MLP of 18432 and no router.
  const OpList dense =
      transformer_layer_ops(m, catalog_system("h100-sxm"), ShapeKey{.tp = 8, .mbs = 1, .seq_len = 4096}, true);
  CHECK(count(dense.forward, "router") == 0);
  CHECK(std::get<GemmShape>(find_op(dense.forward, "fc1", Pass::forward)->shape).n == 2 * 18432 / 8);
}

TEST_CASE("sliding-window layers execute only their window of the attention square") {
  const ModelConfig oss = catalog_model("gpt-oss-120b");
  ModelConfig full = oss;
  full.sliding_window = 0;
  const ShapeKey shape{.tp = 1, .mbs = 1, .seq_len = 4096};
  const auto mask = [&](const ModelConfig& m) {
    const OpList ops = transformer_layer_ops(m, catalog_system("b200"), shape);
    return std::get<AttentionShape>(find_op(ops.forward, "attention", Pass::forward)->shape).mask_fraction;
  };
  // Half the layers see 128 (+ a tile) of 4096 keys: about half the causal work.
  CHECK(mask(oss) == doctest::Approx(0.5 * mask(full) + 0.5 * 256.0 / 4096));
}

TEST_CASE("an MTP module adds a layer, its projection and a second LM head and loss") {
  const ModelConfig m = catalog_model("deepseek-v3");
  const ShapeKey shape{.tp = 1, .ep = 8, .mbs = 1, .seq_len = 4096};
  const OpList mtp = mtp_ops(m, catalog_system("h100-sxm"), shape);
  CHECK(count(mtp.forward, "mtp_projection") == 1);
  CHECK(count(mtp.forward, "lm_head") == 1);
  CHECK(count(mtp.forward, "router") == 1);
  CHECK(count(mtp.backward, "cross_entropy") == 1);
}

TEST_CASE("expert tensor parallelism splits the expert GEMMs over its own group, whose collectives are exposed") {
  const ModelConfig m = catalog_model("mixtral-8x7b");
  const SystemProfile h100 = catalog_system("h100-sxm");
  const ShapeKey etp1{.tp = 2, .ep = 8, .mbs = 1, .seq_len = 4096, .etp = 1};
  const OpList folded = transformer_layer_ops(m, h100, etp1);
  const auto& fc1 = std::get<GemmShape>(find_op(folded.forward, "expert_fc1", Pass::forward)->shape);
  CHECK(fc1.n == 2 * m.ffn);              // gate and up, whole: etp 1
  CHECK(fc1.m * fc1.groups == 2048 * 2);  // the rank's 2048 SP tokens × top-2, no expert-TP gather
  CHECK(count(folded.forward, "tp_all_gather_experts") == 0);
  CHECK(count(folded.forward, "tp_all_gather_qkv") == 1);  // attention keeps TP 2
  const OpList shared = transformer_layer_ops(m, h100, ShapeKey{.tp = 2, .ep = 4, .mbs = 1, .seq_len = 4096});
  const Op* gather = find_op(shared.forward, "tp_all_gather_experts", Pass::forward);
  REQUIRE(gather != nullptr);
  CHECK(gather->group == CommGroup::etp);
  CHECK(std::get<GemmShape>(find_op(shared.forward, "expert_fc1", Pass::forward)->shape).n == m.ffn);  // 2·ffn / etp 2
  // The same expert FLOPs per rank either way: etp 1 holds whole experts for half the tokens.
  CHECK(gemm_flops(folded.forward) == doctest::Approx(gemm_flops(shared.forward) - 0).epsilon(0.35));
}

TEST_CASE("selective recompute reruns the chosen Megatron modules, torchtitan's per-op policy its own set") {
  const ModelConfig ds = catalog_model("deepseek-v3");
  const SystemProfile b200 = catalog_system("b200");
  ShapeKey shape{.tp = 1,
                 .ep = 32,
                 .mbs = 1,
                 .seq_len = 4096,
                 .precision = Precision::mxfp8,
                 .recompute = Recompute::selective,
                 .etp = 1};
  shape.recompute_modules = module_bit(RecomputeModule::mla_up_proj) | module_bit(RecomputeModule::moe_act);
  const OpList ops = transformer_layer_ops(ds, b200, shape);
  const auto rerun = [&](std::string_view name) {
    return std::any_of(ops.backward.begin(), ops.backward.end(),
                       [&](const Op& op) { return op.recompute && op.name == name; });
  };
  CHECK(rerun("q_up"));
  CHECK(rerun("kv_up"));
  CHECK(rerun("rope"));
  CHECK(rerun("swiglu"));  // the experts' activation
  CHECK_FALSE(rerun("attention"));
  CHECK_FALSE(rerun("expert_fc1"));

  SystemProfile titan = catalog_system("h100-sxm");
  titan.software.selective = SelectivePolicy::every_other_matmul;
  const ModelConfig llama = catalog_model("llama3.1-8b");
  const ShapeKey bf16{.tp = 1, .mbs = 2, .seq_len = 8192, .recompute = Recompute::selective};
  const OpList per_op = transformer_layer_ops(llama, titan, bf16);
  const auto rerun_n = [&](const OpList& list, std::string_view name) -> std::int64_t {
    for (const Op& op : list.backward) {
      if (op.recompute && op.name == name) {
        return std::get<GemmShape>(op.shape).n;
      }
    }
    return 0;
  };
  CHECK(rerun_n(per_op, "qkv") == 1024);   // wk of wq, wk, wv (the 2nd aten.mm)
  CHECK(rerun_n(per_op, "proj") == 4096);  // wo (4th)
  CHECK(rerun_n(per_op, "fc1") == 14336);  // w3 of w1, w3 (6th)
  CHECK(rerun_n(per_op, "fc2") == 0);      // w2 (7th) is kept
  ShapeKey fp8 = bf16;
  fp8.precision = Precision::fp8;
  const OpList float8 = transformer_layer_ops(llama, titan, fp8);
  CHECK(rerun_n(float8, "fc2") == 0);               // torchao's FP8 GEMMs dispatch as aten.mm: the same policy
  CHECK(count(float8.backward, "attention") == 1);  // the attention kernel's output is kept
}

TEST_CASE("CUDA-graph scopes: the attention half, the router and the permutation can be captured, the experts not") {
  const ModelConfig m = catalog_model("qwen3-30b-a3b");
  const OpList ops =
      transformer_layer_ops(m, catalog_system("b200"), ShapeKey{.tp = 1, .ep = 8, .mbs = 1, .seq_len = 4096, .etp = 1});
  CHECK(find_op(ops.forward, "qkv", Pass::forward)->scope == GraphScope::attn);
  CHECK(find_op(ops.forward, "attention", Pass::forward)->scope == GraphScope::attn);
  CHECK(find_op(ops.forward, "norm_mlp", Pass::forward)->scope == GraphScope::moe_router);
  CHECK(find_op(ops.forward, "router", Pass::forward)->scope == GraphScope::moe_router);
  CHECK(find_op(ops.forward, "permute", Pass::forward)->scope == GraphScope::moe_preprocess);
  CHECK(find_op(ops.forward, "ep_dispatch", Pass::forward)->scope == GraphScope::none);
  CHECK(find_op(ops.forward, "expert_fc1", Pass::forward)->scope == GraphScope::none);
  const OpList dense = transformer_layer_ops(catalog_model("llama3.1-8b"), catalog_system("b200"),
                                             ShapeKey{.tp = 1, .mbs = 1, .seq_len = 8192});
  CHECK(find_op(dense.forward, "fc1", Pass::forward)->scope == GraphScope::mlp);
}

TEST_CASE("FP8 expert GEMMs pad each expert's tokens to whole blocks and quantize them expert by expert") {
  const ModelConfig m = catalog_model("qwen3-30b-a3b");
  const SystemProfile b200 = catalog_system("b200");
  const ShapeKey shape{.tp = 1, .ep = 8, .mbs = 1, .seq_len = 4096, .precision = Precision::mxfp8, .etp = 1};
  const OpList fp8 = transformer_layer_ops(m, b200, shape);
  CHECK(count(fp8.forward, "pad_expert_input") == 1);
  CHECK(count(fp8.forward, "unpad_expert_output") == 1);
  CHECK(count(fp8.backward, "pad_expert_input") == 1);
  const auto& cast = std::get<MemoryShape>(find_op(fp8.forward, "cast_expert_fc1_input", Pass::forward)->shape);
  CHECK(cast.kernels == m.experts / 8);  // one quantization kernel per local expert
  CHECK(std::get<MemoryShape>(find_op(fp8.forward, "cast_proj_input", Pass::forward)->shape).kernels == 1);
  const OpList bf16 = transformer_layer_ops(m, b200, ShapeKey{.tp = 1, .ep = 8, .mbs = 1, .seq_len = 4096, .etp = 1});
  CHECK(count(bf16.forward, "pad_expert_input") == 0);
}

TEST_CASE("gpt-oss clamps its GLU input and adds its experts' fc2 bias outside the GEMMs, Qwen3 norms q and k") {
  const ShapeKey shape{.tp = 1, .ep = 8, .mbs = 1, .seq_len = 4096, .etp = 1};
  const OpList oss = transformer_layer_ops(catalog_model("gpt-oss-120b"), catalog_system("h100-sxm"), shape);
  CHECK(count(oss.forward, "glu_clamp") == 1);
  CHECK(count(oss.backward, "glu_clamp") == 1);
  CHECK(count(oss.forward, "expert_fc2_bias") == 1);
  CHECK(count(oss.forward, "qk_norm") == 0);
  const OpList qwen = transformer_layer_ops(catalog_model("qwen3-235b-a22b"), catalog_system("h100-sxm"), shape);
  CHECK(count(qwen.forward, "glu_clamp") == 0);
  CHECK(count(qwen.forward, "expert_fc2_bias") == 0);
  CHECK(count(qwen.forward, "qk_norm") == 1);
  CHECK(count(qwen.backward, "qk_norm") == 1);
}
