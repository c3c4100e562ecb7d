// Support of the GPU layer tests (layer_gpu_test.cpp, lora_gpu_test.cpp): one training step of the CUDA layer and of
// the CPU reference layer on the same random BF16 weights and inputs, and the comparison of what every layer has (its
// output y and input gradient dx). Each test uploads the weights under its own names and compares the weight
// gradients it expects.
#pragma once

#include "dgx/llm/cuda/layer.hpp"
#include "dgx/llm/reference/layer.hpp"
#include "gpu_support.hpp"

#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

namespace dgx::llm::testing {

inline std::vector<float> to_float(const std::vector<double>& v) { return {v.begin(), v.end()}; }
inline std::vector<double> to_double(const std::vector<float>& v) { return {v.begin(), v.end()}; }

/// What both layers run on: weights and the inputs x (activations) and dy (the output's gradient), all BF16 values.
struct LayerStepInputs {
  kernels::LayerSpec reference_spec;  ///< the layer's spec in BF16: the reference computes in FP64 from BF16 values
  reference::LayerWeights weights;
  std::vector<double> x, dy;
  std::int64_t tokens = 0, hidden = 0;
};

/// Prints the layer's description, then draws its weights, x and dy from a generator seeded with `seed`.
inline LayerStepInputs random_layer_inputs(const kernels::LayerSpec& spec, std::uint64_t seed) {
  std::printf("%s\n", kernels::describe(spec).c_str());
  std::mt19937_64 rng(seed);
  LayerStepInputs in;
  in.reference_spec = spec;
  in.reference_spec.precision = kernels::Precision::bf16;
  in.weights = reference::LayerWeights::random(in.reference_spec, rng);
  for (double* v : in.weights.values()) {
    *v = reference::round_bf16(*v);
  }
  in.tokens = spec.micro_batch * spec.seq_len;
  in.hidden = spec.arch.hidden;
  in.x = random_bf16(std::size_t(in.tokens * in.hidden), 1.0, rng);
  in.dy = random_bf16(std::size_t(in.tokens * in.hidden), 1.0, rng);
  return in;
}

/// Uploads x and dy into `layer` (its weights already uploaded) and runs one step after `warmup_steps` (delayed FP8
/// scaling needs an amax history), with the gradients of the warm-up cleared.
inline void step_once(cuda::TransformerLayer& layer, const LayerStepInputs& in, int warmup_steps) {
  layer.upload("x", to_float(in.x));
  layer.upload("dy", to_float(in.dy));
  for (int i = 0; i < warmup_steps; ++i) {
    layer.step();
  }
  layer.zero_gradients();
  layer.step();
  layer.synchronize();
}

/// Runs the reference forward and backward on `in`, CHECKs the layer's y and dx against them, and returns the
/// reference's weight gradients.
inline reference::LayerWeights check_output_and_input_gradient(cuda::TransformerLayer& layer, const LayerStepInputs& in,
                                                               double output_tolerance, double grad_tolerance) {
  reference::ReferenceLayer reference(in.reference_spec);
  const reference::Matrix y = reference.forward(in.weights, as_matrix(in.x, in.tokens, in.hidden));
  reference::LayerWeights grads = reference::LayerWeights::zeros_like(in.weights);
  const reference::Matrix dx = reference.backward(in.weights, as_matrix(in.dy, in.tokens, in.hidden), grads);
  check_close("y", to_double(layer.download("y")), y.v, output_tolerance);
  check_close("dx", to_double(layer.download("dx")), dx.v, grad_tolerance);
  return grads;
}

}  // namespace dgx::llm::testing
