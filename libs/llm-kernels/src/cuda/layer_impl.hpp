// The state of a TransformerLayer: parameters, persistent buffers, the activations kept between the passes, and
// the passes themselves (layer_passes.cpp). Private to the library.
#pragma once

#include "context.hpp"
#include "dgx/llm/cuda/device.hpp"
#include "dgx/llm/cuda/layer.hpp"
#include "linear.hpp"

#include <memory>
#include <vector>

namespace dgx::llm::cuda {

struct TransformerLayer::Impl {
  Impl(const kernels::LayerSpec& spec, const LayerOptions& options);

  struct NormParameters {
    DeviceBuffer gamma, beta, gamma_grad, beta_grad;
  };
  /// One attention call: step 0 is causal on the local chunk, steps 1.. run against ring chunks (cp > 1).
  struct AttentionStep {
    AttentionConfig config;
    std::shared_ptr<FlashAttention> attention;  ///< the ring steps share one
  };
  /// A tensor the host can read or write: BF16 activations and weights, FP32 gradients.
  struct TensorRef {
    void* data = nullptr;
    std::int64_t elements = 0;
    bool fp32 = false;
    detail::Linear* linear = nullptr;  ///< a linear's weight: its FP8 copies follow an upload
  };
  /// What the forward keeps for the backward.
  struct Saved {
    DeviceBuffer mean1, rstd1, qkv, o, stats, r1, mean2, rstd2, f1, act, routed;
    std::vector<DeviceBuffer> ring_o, ring_stats;
  };

  // layer_passes.cpp
  void forward_pass();
  void backward_pass();
  void attention_forward();
  void attention_backward(const bf16* d_o, bf16* dqkv);
  void mlp_forward(bf16* out);
  void mlp_backward(bf16* d_in);
  void release_saved();

  // layer.cpp
  void allocate_parameters();
  void allocate_activations();
  void build_attention();
  void tune();
  /// Throws std::invalid_argument for an unknown name.
  [[nodiscard]] TensorRef tensor(const std::string& name);
  [[nodiscard]] bool layernorm() const { return ctx.spec.arch.norm == kernels::Norm::layernorm; }

  DeviceProperties device;
  detail::Context ctx;
  NormParameters norm_attn, norm_mlp;
  std::unique_ptr<detail::Linear> qkv, proj, fc1, fc2, router, expert_fc1, expert_fc2;
  std::vector<AttentionStep> steps;
  DeviceBuffer attention_forward_workspace, attention_backward_workspace, norm_workspace;
  DeviceBuffer rope_table, kv_ring, router_grad;
  // Inputs and outputs, and the gathered [tokens, hidden] buffers whose first tokens / tp rows this rank computes
  // (the rest stand for what the TP all-gather would bring).
  DeviceBuffer x, y, dy, dx, qkv_input, fc1_input, proj_grad;
  DeviceBuffer l2_flush;
  Saved saved;
  bool forward_done = false;
};

}  // namespace dgx::llm::cuda
