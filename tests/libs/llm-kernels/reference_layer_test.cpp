// The reference layer's backward (dx and every weight gradient) against finite differences of its forward.
#include <doctest/doctest.h>

#include "dgx/llm/reference/layer.hpp"
#include "finite_difference.hpp"
#include "layer_fixtures.hpp"

#include <stdexcept>

using namespace dgx::llm;
using namespace dgx::llm::reference;
using namespace dgx::llm::testing;

namespace {

/// A layer small enough for finite differences: 2 sequences of 8 tokens, h = 32, 4 query heads over 2 kv heads.
kernels::LayerSpec tiny(kernels::Activation act, kernels::Norm norm) {
  kernels::LayerSpec s = make_spec(32, 48, 4, 2, 8, 2);
  s.arch.activation = act;
  s.arch.norm = norm;
  s.arch.rope_theta = 10000.0;
  return s;
}

void check_layer(const kernels::LayerSpec& spec) {
  std::mt19937_64 rng(11);
  ReferenceLayer layer(spec);
  LayerWeights w = LayerWeights::random(spec, rng);
  Matrix x = random_matrix(spec.micro_batch * spec.seq_len, spec.arch.hidden, 1.0, rng);
  const Matrix r = random_matrix(x.rows, x.cols, 1.0, rng);

  layer.forward(w, x);
  LayerWeights grads = LayerWeights::zeros_like(w);
  const Matrix dx = layer.backward(w, r, grads);

  const auto loss = [&] { return dot(layer.forward(w, x).v, r.v); };
  check_gradients(pointers(x.v), dx.v, loss, 60, rng, "dx");
  std::vector<double> analytic;
  for (double* g : grads.values()) {
    analytic.push_back(*g);
  }
  check_gradients(w.values(), analytic, loss, 300, rng, "weights");
}

}  // namespace

TEST_CASE("reference layer gradients: RMSNorm, SwiGLU, grouped-query attention, rotary") {
  check_layer(tiny(kernels::Activation::swiglu, kernels::Norm::rmsnorm));
}

TEST_CASE("reference layer gradients: LayerNorm and GELU, multi-head attention without rotary") {
  kernels::LayerSpec spec = tiny(kernels::Activation::gelu, kernels::Norm::layernorm);
  spec.arch.kv_groups = 4;
  spec.arch.rope = false;
  check_layer(spec);
}

TEST_CASE("reference layer gradients: squared ReLU") {
  check_layer(tiny(kernels::Activation::squared_relu, kernels::Norm::rmsnorm));
}

TEST_CASE("reference layer gradients: MoE with 4 experts, top-2, balanced routing") {
  kernels::LayerSpec spec = tiny(kernels::Activation::swiglu, kernels::Norm::rmsnorm);
  spec.arch.experts = 4;
  spec.arch.top_k = 2;
  check_layer(spec);
}

TEST_CASE("the reference layer refuses parallel layouts and a backward without a forward") {
  kernels::LayerSpec spec = tiny(kernels::Activation::swiglu, kernels::Norm::rmsnorm);
  spec.layout.tp = 2;
  CHECK_THROWS_AS(ReferenceLayer{spec}, std::invalid_argument);
  spec.layout.tp = 1;
  ReferenceLayer layer(spec);
  std::mt19937_64 rng(1);
  const LayerWeights w = LayerWeights::random(spec, rng);
  LayerWeights g = LayerWeights::zeros_like(w);
  CHECK_THROWS_AS(layer.backward(w, Matrix(16, 32), g), std::logic_error);
}

TEST_CASE("reference layer gradients with LoRA adapters on every linear layer, adapters included") {
  kernels::LayerSpec spec = tiny(kernels::Activation::swiglu, kernels::Norm::rmsnorm);
  spec.lora = kernels::Lora{.rank = 4, .alpha = 8, .qkv = true, .proj = true, .fc1 = true, .fc2 = true};
  check_layer(spec);
}

TEST_CASE("reference layer gradients with packed samples: attention and rotary positions within each sample") {
  kernels::LayerSpec spec = tiny(kernels::Activation::swiglu, kernels::Norm::rmsnorm);
  spec.sample_len = 4;
  spec.lora = kernels::Lora{.rank = 2, .alpha = 4, .qkv = true};
  check_layer(spec);
}

TEST_CASE("LoRA adds s (x A^T) B^T to the frozen layer's output: zero B leaves the layer unchanged") {
  kernels::LayerSpec plain = tiny(kernels::Activation::swiglu, kernels::Norm::rmsnorm);
  kernels::LayerSpec adapted = plain;
  adapted.lora = kernels::Lora{.rank = 4, .alpha = 8, .qkv = true, .fc2 = true};
  std::mt19937_64 rng(3);
  LayerWeights w = LayerWeights::random(adapted, rng);
  for (LayerWeights::Adapter* a : {&w.qkv_lora, &w.fc2_lora}) {
    for (double& v : a->b.v) {
      v = 0.0;
    }
  }
  const Matrix x = random_matrix(plain.micro_batch * plain.seq_len, plain.arch.hidden, 1.0, rng);
  ReferenceLayer with(adapted), without(plain);
  CHECK(with.forward(w, x).v == without.forward(w, x).v);
}
