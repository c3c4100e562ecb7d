// The forward and backward passes of a TransformerLayer: each op enqueued through the recorder (timed when
// profiling) with the names of dgx::llm::transformer_layer_ops; buffers allocated where they are born and freed
// where they die.
#include "layer_impl.hpp"

#include "dgx/llm/cuda/check.hpp"

namespace dgx::llm::cuda {

using detail::memory_op;

namespace {

constexpr double kBf16 = 2.0;

double norm_bytes(std::int64_t rows, std::int64_t cols, bool forward) {
  return double(rows * cols) * kBf16 * (forward ? 2.0 : 3.0);  // x -> y; x, dy -> dx
}

double activation_bytes(kernels::Activation activation, std::int64_t rows, std::int64_t f, bool forward) {
  const double tensor = double(rows * f) * kBf16;
  if (activation == kernels::Activation::swiglu) {
    return tensor * (forward ? 3.0 : 5.0);
  }
  return tensor * (forward ? 2.0 : 3.0);
}

std::size_t bf16_bytes(std::int64_t elements) { return static_cast<std::size_t>(elements) * sizeof(bf16); }
std::size_t f32_bytes(std::int64_t elements) { return static_cast<std::size_t>(elements) * sizeof(float); }

}  // namespace

void TransformerLayer::Impl::forward_pass() {
  const kernels::RankShapes& r = ctx.shapes;
  const kernels::LayerSpec& spec = ctx.spec;
  const std::int64_t t = r.tokens, ts = r.sp_tokens, h = r.hidden;
  auto& rec = ctx.recorder;
  const cudaStream_t s = ctx.s();

  saved.mean1 = ctx.alloc(layernorm() ? f32_bytes(ts) : 0);
  saved.rstd1 = ctx.alloc(f32_bytes(ts));
  rec.op(memory_op("norm_attn", kernels::Pass::forward, norm_bytes(ts, h, true)), [&] {
    norm_forward(spec.arch.norm, x.as<bf16>(), norm_attn.gamma.as<bf16>(), norm_attn.beta.as<bf16>(),
                 qkv_input.as<bf16>(), saved.mean1.as<float>(), saved.rstd1.as<float>(), ts, h, s);
  });
  saved.qkv = ctx.alloc(bf16_bytes(t * r.qkv_width));
  qkv->forward(qkv_input.as<bf16>(), saved.qkv.as<bf16>());
  if (spec.arch.rope) {
    const std::int64_t heads = r.q_heads + r.kv_heads;
    rec.op(memory_op("rope", kernels::Pass::forward, 2.0 * double(t * heads * r.head_dim) * kBf16), [&] {
      rope_apply(saved.qkv.as<bf16>(), t, r.qkv_width, heads, r.head_dim, r.q_len, rope_table.as<float2>(), false, s);
    });
  }
  attention_forward();
  DeviceBuffer projected = ctx.alloc(bf16_bytes(t * h));
  proj->forward(saved.o.as<bf16>(), projected.as<bf16>());
  saved.r1 = ctx.alloc(bf16_bytes(ts * h));
  rec.op(memory_op("residual_attn", kernels::Pass::forward, 3.0 * double(ts * h) * kBf16),
         [&] { add(x.as<bf16>(), projected.as<bf16>(), saved.r1.as<bf16>(), ts * h, s); });
  projected.reset();

  saved.mean2 = ctx.alloc(layernorm() ? f32_bytes(ts) : 0);
  saved.rstd2 = ctx.alloc(f32_bytes(ts));
  rec.op(memory_op("norm_mlp", kernels::Pass::forward, norm_bytes(ts, h, true)), [&] {
    norm_forward(spec.arch.norm, saved.r1.as<bf16>(), norm_mlp.gamma.as<bf16>(), norm_mlp.beta.as<bf16>(),
                 fc1_input.as<bf16>(), saved.mean2.as<float>(), saved.rstd2.as<float>(), ts, h, s);
  });
  DeviceBuffer mlp_out = ctx.alloc(bf16_bytes(t * h));
  mlp_forward(mlp_out.as<bf16>());
  rec.op(memory_op("residual_mlp", kernels::Pass::forward, 3.0 * double(ts * h) * kBf16),
         [&] { add(saved.r1.as<bf16>(), mlp_out.as<bf16>(), y.as<bf16>(), ts * h, s); });
}

void TransformerLayer::Impl::attention_forward() {
  const kernels::RankShapes& r = ctx.shapes;
  const std::int64_t d = r.head_dim;
  bf16* q = saved.qkv.as<bf16>();
  saved.o = ctx.alloc(bf16_bytes(r.tokens * r.q_heads * d));
  saved.stats = ctx.alloc(f32_bytes(r.attention_batch * r.q_heads * r.q_len));
  saved.ring_o.clear();
  saved.ring_stats.clear();
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const AttentionStep& step = steps[i];
    const bf16* k = i == 0 ? q + r.q_heads * d : kv_ring.as<bf16>();
    const bf16* v = k + r.kv_heads * d;
    bf16* o = saved.o.as<bf16>();
    float* stats = saved.stats.as<float>();
    if (i > 0) {  // a ring step: its partial output and statistics (the merge is not run)
      saved.ring_o.push_back(ctx.alloc(saved.o.bytes()));
      saved.ring_stats.push_back(ctx.alloc(saved.stats.bytes()));
      o = saved.ring_o.back().as<bf16>();
      stats = saved.ring_stats.back().as<float>();
    }
    ctx.recorder.op(detail::attention_op(kernels::Pass::forward, step.config),
                    [&] { step.attention->forward(q, k, v, o, stats, attention_forward_workspace.get(), ctx.s()); });
  }
}

void TransformerLayer::Impl::mlp_forward(bf16* out) {
  const kernels::RankShapes& r = ctx.shapes;
  const kernels::Architecture& a = ctx.spec.arch;
  const std::int64_t t = r.tokens, h = r.hidden;
  const std::string act_name(to_string(a.activation));
  const bf16* in = fc1_input.as<bf16>();
  std::int64_t rows = t;
  DeviceBuffer expert_out;
  if (a.moe()) {
    DeviceBuffer logits = ctx.alloc(bf16_bytes(r.sp_tokens * a.experts));
    router->forward(in, logits.as<bf16>());  // balanced routing: the logits steer nothing (layer_spec.hpp)
    rows = t * a.top_k;
    saved.routed = ctx.alloc(bf16_bytes(rows * h));
    ctx.recorder.op(memory_op("permute", kernels::Pass::forward, 2.0 * double(rows * h) * kBf16),
                    [&] { gather_rows(in, t, h, saved.routed.as<bf16>(), rows, 1.0f, ctx.s()); });
    in = saved.routed.as<bf16>();
    expert_out = ctx.alloc(bf16_bytes(rows * h));
  }
  detail::Linear& first = a.moe() ? *expert_fc1 : *fc1;
  detail::Linear& second = a.moe() ? *expert_fc2 : *fc2;
  saved.f1 = ctx.alloc(bf16_bytes(rows * r.fc1_width));
  first.forward(in, saved.f1.as<bf16>());
  saved.act = ctx.alloc(bf16_bytes(rows * r.ffn));
  ctx.recorder.op(memory_op(act_name, kernels::Pass::forward, activation_bytes(a.activation, rows, r.ffn, true)), [&] {
    activation_forward(a.activation, saved.f1.as<bf16>(), saved.act.as<bf16>(), rows, r.ffn, ctx.s());
  });
  second.forward(saved.act.as<bf16>(), a.moe() ? expert_out.as<bf16>() : out);
  // FP8 wgrad keeps its transposed FP8 copy instead; a frozen fc2 without adapter needs no input at all.
  if (!second.reads_input()) {
    saved.act.reset();
  }
  if (a.moe()) {
    ctx.recorder.op(memory_op("unpermute", kernels::Pass::forward, 2.0 * double(rows * h) * kBf16),
                    [&] { sum_rows(expert_out.as<bf16>(), t, h, a.top_k, 1.0f / float(a.top_k), out, ctx.s()); });
  }
}

void TransformerLayer::Impl::backward_pass() {
  if (!forward_done) {
    throw Error(Error::Kind::runtime, "TransformerLayer::backward needs a forward first");
  }
  const kernels::RankShapes& r = ctx.shapes;
  const kernels::LayerSpec& spec = ctx.spec;
  const std::int64_t t = r.tokens, ts = r.sp_tokens, h = r.hidden;
  auto& rec = ctx.recorder;
  const cudaStream_t s = ctx.s();
  if (spec.recompute == kernels::Recompute::full) {
    rec.set_recompute(true);
    forward_pass();
    rec.set_recompute(false);
  }

  DeviceBuffer d_norm_mlp_out = ctx.alloc(bf16_bytes(t * h));
  mlp_backward(d_norm_mlp_out.as<bf16>());
  DeviceBuffer d_r1_norm = ctx.alloc(bf16_bytes(ts * h));
  rec.op(memory_op("norm_mlp", kernels::Pass::backward, norm_bytes(ts, h, false)), [&] {
    norm_backward(spec.arch.norm, saved.r1.as<bf16>(), norm_mlp.gamma.as<bf16>(), saved.mean2.as<float>(),
                  saved.rstd2.as<float>(), d_norm_mlp_out.as<bf16>(), d_r1_norm.as<bf16>(),
                  norm_mlp.gamma_grad.as<float>(), norm_mlp.beta_grad.as<float>(), norm_workspace.get(), ts, h, s);
  });
  d_norm_mlp_out.reset();
  // d r1 = dy (the MLP residual's skip path) + the norm's branch; it is the output gradient of proj.
  rec.op(memory_op("residual_mlp", kernels::Pass::backward, 3.0 * double(ts * h) * kBf16),
         [&] { add(dy.as<bf16>(), d_r1_norm.as<bf16>(), proj_grad.as<bf16>(), ts * h, s); });
  d_r1_norm.reset();
  saved.r1.reset();

  DeviceBuffer d_o = ctx.alloc(bf16_bytes(t * r.q_heads * r.head_dim));
  proj->backward(proj_grad.as<bf16>(), d_o.as<bf16>());
  if (spec.recompute == kernels::Recompute::selective) {
    rec.set_recompute(true);
    attention_forward();
    rec.set_recompute(false);
  }
  DeviceBuffer d_qkv = ctx.alloc(bf16_bytes(t * r.qkv_width));
  attention_backward(d_o.as<bf16>(), d_qkv.as<bf16>());
  d_o.reset();
  if (spec.arch.rope) {
    const std::int64_t heads = r.q_heads + r.kv_heads;
    rec.op(memory_op("rope", kernels::Pass::backward, 2.0 * double(t * heads * r.head_dim) * kBf16), [&] {
      rope_apply(d_qkv.as<bf16>(), t, r.qkv_width, heads, r.head_dim, r.q_len, rope_table.as<float2>(), true, s);
    });
  }
  DeviceBuffer d_norm_attn_out = ctx.alloc(bf16_bytes(t * h));
  qkv->backward(d_qkv.as<bf16>(), d_norm_attn_out.as<bf16>());
  d_qkv.reset();
  DeviceBuffer d_x_norm = ctx.alloc(bf16_bytes(ts * h));
  rec.op(memory_op("norm_attn", kernels::Pass::backward, norm_bytes(ts, h, false)), [&] {
    norm_backward(spec.arch.norm, x.as<bf16>(), norm_attn.gamma.as<bf16>(), saved.mean1.as<float>(),
                  saved.rstd1.as<float>(), d_norm_attn_out.as<bf16>(), d_x_norm.as<bf16>(),
                  norm_attn.gamma_grad.as<float>(), norm_attn.beta_grad.as<float>(), norm_workspace.get(), ts, h, s);
  });
  rec.op(memory_op("residual_attn", kernels::Pass::backward, 3.0 * double(ts * h) * kBf16),
         [&] { add(proj_grad.as<bf16>(), d_x_norm.as<bf16>(), dx.as<bf16>(), ts * h, s); });
  release_saved();
}

void TransformerLayer::Impl::attention_backward(const bf16* d_o, bf16* dqkv) {
  const kernels::RankShapes& r = ctx.shapes;
  const std::int64_t d = r.head_dim;
  const bf16* q = saved.qkv.as<bf16>();
  DeviceBuffer ring_dq, ring_dkv;  // the ring steps' gradients (summed and returned by CP, not here)
  if (steps.size() > 1) {
    ring_dq = ctx.alloc(bf16_bytes(r.tokens * r.qkv_width));
    ring_dkv = ctx.alloc(kv_ring.bytes());
  }
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const AttentionStep& step = steps[i];
    const bool local = i == 0;
    const bf16* k = local ? q + r.q_heads * d : kv_ring.as<bf16>();
    const bf16* v = k + r.kv_heads * d;
    const bf16* o = local ? saved.o.as<bf16>() : saved.ring_o[i - 1].as<bf16>();
    const float* stats = local ? saved.stats.as<float>() : saved.ring_stats[i - 1].as<float>();
    bf16* dq = local ? dqkv : ring_dq.as<bf16>();
    bf16* dk = local ? dqkv + r.q_heads * d : ring_dkv.as<bf16>();
    bf16* dv = dk + r.kv_heads * d;
    ctx.recorder.op(detail::attention_op(kernels::Pass::backward, step.config), [&] {
      step.attention->backward(q, k, v, o, d_o, stats, dq, dk, dv, attention_backward_workspace.get(), ctx.s());
    });
  }
}

void TransformerLayer::Impl::mlp_backward(bf16* d_in) {
  const kernels::RankShapes& r = ctx.shapes;
  const kernels::Architecture& a = ctx.spec.arch;
  const std::int64_t t = r.tokens, h = r.hidden;
  const std::int64_t rows = a.moe() ? t * a.top_k : t;
  const std::string act_name(to_string(a.activation));
  detail::Linear& first = a.moe() ? *expert_fc1 : *fc1;
  detail::Linear& second = a.moe() ? *expert_fc2 : *fc2;
  const bf16* d_out = dy.as<bf16>();
  DeviceBuffer d_expert_out;
  if (a.moe()) {
    d_expert_out = ctx.alloc(bf16_bytes(rows * h));
    ctx.recorder.op(memory_op("unpermute", kernels::Pass::backward, 2.0 * double(rows * h) * kBf16), [&] {
      gather_rows(dy.as<bf16>(), t, h, d_expert_out.as<bf16>(), rows, 1.0f / float(a.top_k), ctx.s());
    });
    d_out = d_expert_out.as<bf16>();
  }
  DeviceBuffer d_act = ctx.alloc(bf16_bytes(rows * r.ffn));
  second.backward(d_out, d_act.as<bf16>());
  d_expert_out.reset();
  saved.act.reset();
  DeviceBuffer d_f1 = ctx.alloc(bf16_bytes(rows * r.fc1_width));
  ctx.recorder.op(
      memory_op(act_name, kernels::Pass::backward, activation_bytes(a.activation, rows, r.ffn, false)), [&] {
        activation_backward(a.activation, saved.f1.as<bf16>(), d_act.as<bf16>(), d_f1.as<bf16>(), rows, r.ffn, ctx.s());
      });
  d_act.reset();
  saved.f1.reset();
  if (!a.moe()) {
    first.backward(d_f1.as<bf16>(), d_in);
    return;
  }
  DeviceBuffer d_routed = ctx.alloc(bf16_bytes(rows * h));
  first.backward(d_f1.as<bf16>(), d_routed.as<bf16>());
  d_f1.reset();
  ctx.recorder.op(memory_op("permute", kernels::Pass::backward, 2.0 * double(rows * h) * kBf16),
                  [&] { sum_rows(d_routed.as<bf16>(), t, h, a.top_k, 1.0f, d_in, ctx.s()); });
  // The router's output steered nothing, so its gradient is zero; its GEMMs still run, as in training.
  DeviceBuffer router_dx = ctx.alloc(bf16_bytes(r.sp_tokens * h));
  router->backward(router_grad.as<bf16>(), router_dx.as<bf16>());
}

void TransformerLayer::Impl::release_saved() {
  saved = Saved{};
  for (detail::Linear* linear :
       {qkv.get(), proj.get(), fc1.get(), fc2.get(), router.get(), expert_fc1.get(), expert_fc2.get()}) {
    if (linear != nullptr) {
      linear->release_saved();
    }
  }
}

}  // namespace dgx::llm::cuda
