// The CUDA layer fine-tuned with LoRA against the CPU reference on fresh random inputs: output, input gradient and
// the adapters' gradients (the frozen weights have none), BF16 and FP8, packed samples; its ops are the frozen
// GEMMs' forward and dgrad plus the adapters' six GEMMs, and it keeps less than the fully trained layer.
#include "dgx/llm/cuda/layer.hpp"
#include "dgx/llm/reference/layer.hpp"
#include "gpu_support.hpp"
#include "layer_fixtures.hpp"
#include "layer_reference_step.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

using namespace dgx::llm;
using namespace dgx::llm::cuda;
using namespace dgx::llm::kernels;
using namespace dgx::llm::testing;
namespace ref = dgx::llm::reference;

namespace {

/// 2 sequences of 128 tokens, h = 256, 4 query heads over 2 kv heads of 64, adapters of rank 16 (alpha 32).
LayerSpec small_lora(bool qkv, bool proj, bool fc1, bool fc2) {
  LayerSpec s = make_spec(256, 512, 4, 2, 128, 2);
  s.arch.rope_theta = 10000.0;
  s.lora = Lora{.rank = 16, .alpha = 32, .qkv = qkv, .proj = proj, .fc1 = fc1, .fc2 = fc2};
  return s;
}

/// Every tensor of the reference weights under the CUDA layer's names (frozen weights and adapters).
std::map<std::string, std::vector<double>> tensors(const ref::LayerWeights& w) {
  std::map<std::string, std::vector<double>> m = {
      {"norm_attn.gamma", w.norm1_gamma}, {"qkv.weight", w.qkv.v}, {"proj.weight", w.proj.v},
      {"norm_mlp.gamma", w.norm2_gamma},  {"fc1.weight", w.fc1.v}, {"fc2.weight", w.fc2.v}};
  const std::pair<const char*, const ref::LayerWeights::Adapter*> adapters[] = {
      {"qkv", &w.qkv_lora}, {"proj", &w.proj_lora}, {"fc1", &w.fc1_lora}, {"fc2", &w.fc2_lora}};
  for (const auto& [name, a] : adapters) {
    if (a->a.rows == 0) {
      continue;
    }
    m[std::string(name) + ".lora_a"] = a->a.v;
    m[std::string(name) + ".lora_b"] = a->b.v;
  }
  return m;
}

void compare_lora(const LayerSpec& spec, double output_tolerance, double grad_tolerance, int warmup_steps) {
  const LayerStepInputs in = random_layer_inputs(spec, 41);
  TransformerLayer layer(spec, LayerOptions{.seed = 5, .gemm_candidates = 2});
  const auto all = tensors(in.weights);
  for (const auto& [name, values] : all) {
    layer.upload(name, to_float(values));
  }
  step_once(layer, in, warmup_steps);

  const ref::LayerWeights grads = check_output_and_input_gradient(layer, in, output_tolerance, grad_tolerance);
  const auto expected = tensors(grads);
  const std::vector<std::string> trained = layer.parameter_names();
  CHECK(trained.size() == 2u * std::size_t(spec.lora.targets()));
  for (const std::string& name : trained) {
    CHECK(name.find(".lora_") != std::string::npos);
    check_close((name + ".grad").c_str(), to_double(layer.download(name + ".grad")), expected.at(name), grad_tolerance);
  }
  CHECK_THROWS_AS((void)layer.download("qkv.weight.grad"), std::invalid_argument);  // frozen: no gradient
}

}  // namespace

TEST_CASE("BF16 LoRA layer with adapters on QKV (the recipes' default) matches the reference") {
  if (!have_gpu()) {
    return;
  }
  compare_lora(small_lora(true, false, false, false), kBf16Tolerance, kBf16LayerGradTolerance, 0);
}

TEST_CASE("BF16 LoRA layer with adapters on every linear layer matches the reference") {
  if (!have_gpu()) {
    return;
  }
  compare_lora(small_lora(true, true, true, true), kBf16Tolerance, kBf16LayerGradTolerance, 0);
}

TEST_CASE("FP8 frozen base with BF16 adapters matches the reference within FP8 tolerances") {
  if (!have_gpu()) {
    return;
  }
  LayerSpec spec = small_lora(true, false, false, true);
  spec.precision = Precision::fp8;
  compare_lora(spec, kFp8LayerOutputTolerance, kFp8LayerGradTolerance, 2);
}

TEST_CASE("packed samples: the LoRA layer attends within each sample, as the reference does") {
  if (!have_gpu()) {
    return;
  }
  LayerSpec spec = small_lora(true, false, false, false);
  spec.sample_len = 64;
  compare_lora(spec, kBf16Tolerance, kBf16LayerGradTolerance, 0);
}

TEST_CASE("the LoRA layer runs no frozen wgrad, six adapter GEMMs per adapter, and keeps less than full training") {
  if (!have_gpu()) {
    return;
  }
  LayerSpec full = small_lora(false, false, false, false);
  full.lora = Lora{};
  const LayerSpec adapted = small_lora(true, false, false, true);
  TransformerLayer frozen(adapted, LayerOptions{.seed = 3, .gemm_candidates = 1});
  const LayerTiming t = frozen.profile(2);
  const auto count = [&](const std::string& name, Pass pass) {
    return std::count_if(t.ops.begin(), t.ops.end(),
                         [&](const OpTiming& op) { return op.name == name && op.pass == pass && !op.recompute; });
  };
  for (const char* base : {"qkv", "proj", "fc1", "fc2"}) {
    CHECK(count(base, Pass::wgrad) == 0);
    CHECK(count(base, Pass::dgrad) == 1);
  }
  for (const char* adapter : {"qkv_lora_a", "qkv_lora_b", "fc2_lora_a", "fc2_lora_b"}) {
    CHECK(count(adapter, Pass::forward) == 1);
    CHECK(count(adapter, Pass::wgrad) == 1);
    CHECK(count(adapter, Pass::dgrad) == 1);
  }
  CHECK(t.model_flops == doctest::Approx(model_flops(adapted)));
  // Memory in FP8, where freezing saves activations: a frozen GEMM keeps no transposed FP8 copy of its input (only
  // wgrad reads it). In BF16 every frozen layer's input is kept anyway (by attention's backward, an adapter or the
  // caller), so the adapted layer keeps what full training keeps plus its adapters' rank-wide intermediates.
  // Gradients: rank 16 against h = 256 makes the adapters ~4% of the frozen weights here (< 1% at Llama's sizes).
  LayerSpec full_fp8 = full, adapted_fp8 = adapted;
  full_fp8.precision = adapted_fp8.precision = Precision::fp8;
  TransformerLayer trained(full_fp8, LayerOptions{.seed = 3, .gemm_candidates = 1});
  TransformerLayer frozen_fp8(adapted_fp8, LayerOptions{.seed = 3, .gemm_candidates = 1});
  const MemoryUse lora_memory = frozen_fp8.measure_memory(), full_memory = trained.measure_memory();
  CHECK(lora_memory.gradients < full_memory.gradients / 10);
  CHECK(lora_memory.activations < full_memory.activations);
  std::printf("LoRA step %.3f ms (forward %.3f, backward %.3f); activations %.1f MiB vs %.1f MiB trained\n",
              t.step_seconds * 1e3, t.forward_seconds * 1e3, t.backward_seconds * 1e3,
              double(lora_memory.activations) / 1048576.0, double(full_memory.activations) / 1048576.0);
}
