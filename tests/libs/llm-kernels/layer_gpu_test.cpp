// The CUDA transformer layer against the CPU reference layer on fresh random inputs: output, input gradient and
// every weight gradient, for BF16 and FP8, dense and MoE; recompute changes the schedule, not the numbers.
#include "dgx/llm/cuda/layer.hpp"
#include "dgx/llm/cuda/stage_ops.hpp"
#include "dgx/llm/reference/layer.hpp"
#include "gpu_support.hpp"
#include "layer_fixtures.hpp"
#include "layer_reference_step.hpp"

#include <algorithm>
#include <cmath>
#include <map>

using namespace dgx::llm;
using namespace dgx::llm::cuda;
using namespace dgx::llm::kernels;
using namespace dgx::llm::testing;
namespace ref = dgx::llm::reference;

namespace {

/// 2 sequences of 128 tokens, h = 256, 4 query heads over 2 kv heads of 64: small for the CPU, valid for cuDNN
/// and FP8 (every GEMM dimension a multiple of 16).
LayerSpec small(Activation act = Activation::swiglu, Norm norm = Norm::rmsnorm) {
  LayerSpec s = make_spec(256, 512, 4, 2, 128, 2);
  s.arch.activation = act;
  s.arch.norm = norm;
  s.arch.rope_theta = 10000.0;
  return s;
}

std::vector<double> flat(const ref::Matrix& m) { return m.v; }
std::vector<double> flat(const std::vector<ref::Matrix>& ms) {
  std::vector<double> out;
  for (const ref::Matrix& m : ms) {
    out.insert(out.end(), m.v.begin(), m.v.end());
  }
  return out;
}

/// The reference's parameters by the CUDA layer's names.
std::map<std::string, std::vector<double>> by_name(const ref::LayerWeights& w, bool moe, bool layernorm) {
  std::map<std::string, std::vector<double>> m = {{"norm_attn.gamma", w.norm1_gamma},
                                                  {"qkv.weight", flat(w.qkv)},
                                                  {"proj.weight", flat(w.proj)},
                                                  {"norm_mlp.gamma", w.norm2_gamma}};
  if (layernorm) {
    m["norm_attn.beta"] = w.norm1_beta, m["norm_mlp.beta"] = w.norm2_beta;
  }
  if (moe) {
    m["router.weight"] = flat(w.router);
    m["expert_fc1.weight"] = flat(w.expert_fc1);
    m["expert_fc2.weight"] = flat(w.expert_fc2);
  } else {
    m["fc1.weight"] = flat(w.fc1);
    m["fc2.weight"] = flat(w.fc2);
  }
  return m;
}

void compare_with_reference(const LayerSpec& spec, double output_tolerance, double grad_tolerance, int warmup_steps) {
  const LayerStepInputs in = random_layer_inputs(spec, 30);
  TransformerLayer layer(spec, LayerOptions{.seed = 5, .gemm_candidates = 2});
  const auto params = by_name(in.weights, spec.arch.moe(), spec.arch.norm == Norm::layernorm);
  for (const std::string& name : layer.parameter_names()) {
    layer.upload(name, to_float(params.at(name)));
  }
  step_once(layer, in, warmup_steps);

  const ref::LayerWeights grads = check_output_and_input_gradient(layer, in, output_tolerance, grad_tolerance);
  const auto expected_grads = by_name(grads, spec.arch.moe(), spec.arch.norm == Norm::layernorm);
  for (const std::string& name : layer.parameter_names()) {
    if (name == "router.weight") {
      continue;  // zero by construction (balanced routing)
    }
    check_close((name + ".grad").c_str(), to_double(layer.download(name + ".grad")), expected_grads.at(name),
                grad_tolerance);
  }
}

}  // namespace

TEST_CASE("BF16 layer (RMSNorm, SwiGLU, GQA, rotary) matches the reference") {
  if (!have_gpu()) {
    return;
  }
  compare_with_reference(small(), kBf16Tolerance, kBf16LayerGradTolerance, 0);
}

TEST_CASE("BF16 layer with LayerNorm and GELU, and with squared ReLU, matches the reference") {
  if (!have_gpu()) {
    return;
  }
  compare_with_reference(small(Activation::gelu, Norm::layernorm), kBf16Tolerance, kBf16LayerGradTolerance, 0);
  compare_with_reference(small(Activation::squared_relu), kBf16Tolerance, kBf16LayerGradTolerance, 0);
}

TEST_CASE("BF16 MoE layer (8 experts, top-2, grouped expert GEMMs) matches the reference") {
  if (!have_gpu()) {
    return;
  }
  LayerSpec spec = small();
  spec.arch.experts = 8;  // 8 router outputs: 16-byte rows for cuBLASLt
  spec.arch.top_k = 2;
  compare_with_reference(spec, kBf16Tolerance, kBf16LayerGradTolerance, 0);
}

TEST_CASE("FP8 layer with delayed and with current scaling matches the reference within FP8 tolerances") {
  if (!have_gpu()) {
    return;
  }
  LayerSpec spec = small();
  spec.precision = Precision::fp8;
  spec.scaling = Fp8Scaling::delayed;
  compare_with_reference(spec, kFp8LayerOutputTolerance, kFp8LayerGradTolerance, 2);
  spec.scaling = Fp8Scaling::current;
  compare_with_reference(spec, kFp8LayerOutputTolerance, kFp8LayerGradTolerance, 0);
}

TEST_CASE("selective and full recompute give the same numbers as no recompute, with extra forward ops") {
  if (!have_gpu()) {
    return;
  }
  std::map<Recompute, std::vector<float>> dx;
  std::map<Recompute, std::size_t> recomputed;
  for (const Recompute r : {Recompute::none, Recompute::selective, Recompute::full}) {
    LayerSpec spec = small();
    spec.recompute = r;
    TransformerLayer layer(spec, LayerOptions{.seed = 7, .gemm_candidates = 1});
    layer.step();
    dx[r] = layer.download("dx");
    const LayerTiming timing = layer.profile(2);
    recomputed[r] = std::size_t(
        std::count_if(timing.ops.begin(), timing.ops.end(), [](const OpTiming& op) { return op.recompute; }));
  }
  check_close("dx selective vs none", to_double(dx[Recompute::selective]), to_double(dx[Recompute::none]), 1e-2);
  check_close("dx full vs none", to_double(dx[Recompute::full]), to_double(dx[Recompute::none]), 1e-2);
  CHECK(recomputed[Recompute::none] == 0);
  CHECK(recomputed[Recompute::selective] == 1);  // the attention core
  CHECK(recomputed[Recompute::full] > 10);       // the whole forward
}

TEST_CASE("profiling times every op, sums to about the step, and measures memory") {
  if (!have_gpu()) {
    return;
  }
  TransformerLayer layer(small(), LayerOptions{.seed = 3, .gemm_candidates = 1});
  const LayerTiming timing = layer.profile(3);
  REQUIRE_FALSE(timing.ops.empty());
  for (const OpTiming& op : timing.ops) {
    INFO(op.key());
    CHECK(op.seconds > 0);
    if (op.kind != OpKind::memory) {
      CHECK(op.flops > 0);
    }
  }
  CHECK(timing.step_seconds > 0);
  CHECK(timing.forward_seconds + timing.backward_seconds > 0.5 * timing.step_seconds);
  CHECK(timing.model_flops == doctest::Approx(model_flops(small())));
  CHECK(timing.peak_bytes > timing.weight_bytes + timing.gradient_bytes);
  CHECK(timing.activation_bytes > 0);
  std::printf("step %.3f ms, forward %.3f ms, backward %.3f ms, peak %.1f MiB, activations %.1f MiB\n",
              timing.step_seconds * 1e3, timing.forward_seconds * 1e3, timing.backward_seconds * 1e3,
              double(timing.peak_bytes) / 1048576.0, double(timing.activation_bytes) / 1048576.0);
}

TEST_CASE("parallel layouts run at their per-rank shapes: TP 2 with sequence parallelism, CP 2, EP 2") {
  if (!have_gpu()) {
    return;
  }
  LayerSpec tp = small();
  tp.layout.tp = 2;
  LayerSpec cp = small();
  cp.seq_len = 512;  // ring steps of 128 keys
  cp.layout.cp = 2;
  LayerSpec ep = small();
  ep.arch.experts = 8;
  ep.arch.top_k = 2;
  ep.layout.ep = 2;
  for (const LayerSpec& spec : {tp, cp, ep}) {
    std::printf("%s\n", describe(spec).c_str());
    TransformerLayer layer(spec, LayerOptions{.seed = 9, .gemm_candidates = 1});
    const LayerTiming timing = layer.profile(1);
    CHECK(timing.step_seconds > 0);
    const auto attention = std::count_if(timing.ops.begin(), timing.ops.end(), [](const OpTiming& op) {
      return op.kind == OpKind::attention && op.pass == Pass::forward;
    });
    CHECK(attention == spec.layout.cp);
  }
}

TEST_CASE("the first and last stages' ops run and time: embedding, final norm, LM head, cross-entropy") {
  if (!have_gpu()) {
    return;
  }
  LayerSpec spec = small();
  spec.arch.vocab = 4096;
  StageOps stages(spec, LayerOptions{.seed = 4, .gemm_candidates = 1});
  const std::vector<OpTiming> ops = stages.profile(2);
  std::vector<std::string> keys;
  for (const OpTiming& op : ops) {
    INFO(op.key());
    CHECK(op.seconds > 0);
    keys.push_back(op.name + "." + std::string(to_string(op.pass)));
  }
  for (const char* expected :
       {"embedding.forward", "final_norm.forward", "lm_head.forward", "cross_entropy.forward", "cross_entropy.backward",
        "lm_head.dgrad", "lm_head.wgrad", "final_norm.backward", "embedding.backward"}) {
    CHECK(std::find(keys.begin(), keys.end(), expected) != keys.end());
  }
  // Logits of about unit scale over 4096 classes: the mean loss is near ln(4096).
  CHECK(std::fabs(stages.last_loss() - std::log(4096.0f)) < 1.0f);
}
