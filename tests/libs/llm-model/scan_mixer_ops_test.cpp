// The Mamba-2 and Gated DeltaNet blocks of a training layer (scan_mixer_ops.cpp, through layer_ops.hpp).
#include "dgx/llm/layer_ops.hpp"
#include "dgx/llm/layout.hpp"
#include "dgx/llm/memory_model.hpp"
#include "dgx/llm/mixer_work.hpp"

#include "catalog_fixtures.hpp"
#include "op_checks.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace dgx::llm;
using dgx::llm::testing::catalog_system;
using dgx::llm::testing::fixture_model;
using dgx::llm::testing::gemm_flops_of;
using dgx::llm::testing::has_op;
using dgx::llm::testing::op_named;

namespace {
/// The view of the model's group whose mixer and MLP are these.
ModelConfig group_view(const ModelConfig& model, Mixer mixer, Mlp mlp) {
  for (const LayerGroup& g : model.layer_groups) {
    if (g.mixer == mixer && g.mlp == mlp) {
      return model.layer_view(g);
    }
  }
  FAIL("no such group");
  return model;
}
}  // namespace

TEST_CASE("a Mamba-2 layer runs in_proj, the convolution, the SSD scan, the gated norm and out_proj, split over TP") {
  const ModelConfig m = group_view(fixture_model("nemotron-h-8b-like"), Mixer::mamba2, Mlp::none);
  const ShapeKey shape{.tp = 2, .mbs = 1, .seq_len = 8192};
  const OpList ops = transformer_layer_ops(m, catalog_system("h100-sxm"), shape);
  const Mamba2Sizes& s = m.mamba;
  const std::int64_t inner = std::int64_t{s.heads} * s.head_dim;
  const auto& in_proj = std::get<GemmShape>(op_named(ops.forward, "in_proj", Pass::forward)->shape);
  CHECK(in_proj.n == (2 * inner + 2LL * s.groups * s.state + s.heads) / 2);
  CHECK(std::get<GemmShape>(op_named(ops.forward, "out_proj", Pass::forward)->shape).k == inner / 2);
  const auto& scan = std::get<ScanShape>(op_named(ops.forward, "ssd_scan", Pass::forward)->shape);
  CHECK(scan.flops == doctest::Approx(ssd_forward(s, 1, 8192, 2).flops));
  CHECK(std::get<ScanShape>(op_named(ops.backward, "ssd_scan", Pass::backward)->shape).flops ==
        doctest::Approx(ssd_backward(s, 1, 8192, 2).flops));
  for (const char* name : {"norm_mixer", "conv1d", "gated_norm", "residual_mixer", "tp_reduce_scatter_out_proj"}) {
    CHECK_MESSAGE(has_op(ops.forward, name), name);
  }
  // A mixer-only layer: one norm, no MLP, no attention.
  for (const char* name : {"norm_mlp", "fc1", "attention", "norm_attn", "residual_mlp"}) {
    CHECK_MESSAGE(!has_op(ops.forward, name), name);
  }
  // Its GEMMs are the mixer's linear weights: 6 FLOPs per weight and token over all TP ranks.
  CHECK(gemm_flops_of(ops) * 2 == doctest::Approx(6.0 * 8192 * dgx::catalog::mixer_linear_weights(m)));
}

TEST_CASE("a Gated DeltaNet layer runs in_proj, the convolution, the gates, the delta rule, the gated norm, out_proj") {
  const ModelConfig m = group_view(fixture_model("qwen3.5-27b-like"), Mixer::linear_attention, Mlp::dense);
  const ShapeKey shape{.tp = 4, .mbs = 1, .seq_len = 4096};
  const OpList ops = transformer_layer_ops(m, catalog_system("h100-sxm"), shape);
  const LinearAttentionSizes& la = m.linear_attention;
  const auto& scan = std::get<ScanShape>(op_named(ops.forward, "delta_rule_scan", Pass::forward)->shape);
  CHECK(scan.flops == doctest::Approx(delta_rule_forward(la, 1, 4096, 4).flops));
  CHECK(std::get<GemmShape>(op_named(ops.forward, "in_proj", Pass::forward)->shape).n ==
        (2 * 16 * 128 + 2 * 48 * 128 + 2 * 48) / 4);
  for (const char* name : {"conv1d", "gdn_gates", "gated_norm", "out_proj", "fc1", "fc2", "norm_mlp"}) {
    CHECK_MESSAGE(has_op(ops.forward, name), name);
  }
  CHECK_FALSE(has_op(ops.forward, "attention"));
  const double mlp = dgx::catalog::mlp_linear_weights(m, static_cast<double>(m.ffn));
  CHECK(gemm_flops_of(ops) * 4 == doctest::Approx(6.0 * 4096 * (dgx::catalog::mixer_linear_weights(m) + mlp)));
}

TEST_CASE("an MLP-only layer (no mixer) runs its norm, MLP and residual and nothing of a mixer") {
  const ModelConfig m = group_view(fixture_model("nemotron-h-8b-like"), Mixer::none, Mlp::dense);
  const OpList ops = transformer_layer_ops(m, catalog_system("h100-sxm"), ShapeKey{.tp = 1, .mbs = 1, .seq_len = 8192});
  CHECK(has_op(ops.forward, "squared_relu"));
  for (const char* name : {"norm_attn", "norm_mixer", "qkv", "in_proj", "attention", "residual_attn"}) {
    CHECK_MESSAGE(!has_op(ops.forward, name), name);
  }
}

TEST_CASE("the scan layers save their projections, convolution and scan outputs, split over TP") {
  const ModelConfig mamba = group_view(fixture_model("nemotron-h-8b-like"), Mixer::mamba2, Mlp::none);
  const ShapeKey one{.tp = 1, .mbs = 1, .seq_len = 8192};
  const ShapeKey two{.tp = 2, .mbs = 1, .seq_len = 8192};
  const double saved = layer_activation_bytes(mamba, one);
  CHECK(layer_activation_bytes(mamba, two) == doctest::Approx(saved / 2));
  // By hand (BF16): norm input 4096·2; in_proj input 4096·2; z·x·B·C·dt (2·8192 + 2·1024 + 128)·2; the convolution's
  // output (8192 + 2048)·2; y 8192·2; dt and the decay 2·128·4; out_proj's input 8192·2, per token.
  const double per_token =
      4096 * 2 + 4096 * 2 + (2 * 8192 + 2048 + 128) * 2 + (8192 + 2048) * 2 + 8192 * 2 + 2 * 128 * 4 + 8192 * 2;
  CHECK(saved == doctest::Approx(8192 * per_token));
  ShapeKey full = one;
  full.recompute = Recompute::full;
  CHECK(layer_activation_bytes(mamba, full) == doctest::Approx(8192.0 * 4096 * 2));
}

TEST_CASE("TP must divide every layer kind's heads, and CP is refused for the scan layers") {
  const ModelConfig m = fixture_model("nemotron-h-8b-like");
  const SystemProfile h100 = catalog_system("h100-sxm");
  TrainConfig t = dgx::llm::testing::train(Layout{.tp = 8}, 1, 64, 8192);
  CHECK(resolve_layout(m, h100, 64, t).has_value());
  t.layout = Layout{.tp = 1, .cp = 2};
  const auto cp = resolve_layout(m, h100, 64, t);
  REQUIRE_FALSE(cp.has_value());
  CHECK(cp.error().message.find("context parallelism (cp 2) of Mamba-2 and linear-attention layers") !=
        std::string::npos);
  ModelConfig odd = m;
  odd.mamba.groups = 1;  // 8 heads' worth of groups folded into one: TP 2 cannot split it
  t.layout = Layout{.tp = 2};
  const auto split = resolve_layout(odd, h100, 64, t);
  REQUIRE_FALSE(split.has_value());
  CHECK(split.error().message.find("does not divide the heads of every layer kind") != std::string::npos);
}
