#include "dgx/llm/cuda/stage_ops.hpp"

#include "context.hpp"
#include "dgx/llm/cuda/check.hpp"
#include "dgx/llm/cuda/device.hpp"
#include "linear.hpp"

#include <numeric>
#include <stdexcept>

namespace dgx::llm::cuda {

using detail::memory_op;

namespace {

std::size_t bf16_bytes(std::int64_t n) { return static_cast<std::size_t>(n) * sizeof(bf16); }
std::size_t f32_bytes(std::int64_t n) { return static_cast<std::size_t>(n) * sizeof(float); }

}  // namespace

struct StageOps::Impl {
  Impl(const kernels::LayerSpec& spec, const LayerOptions& options)
      : device(current_device()), ctx(spec, std::max(1, options.gemm_candidates), options.seed),
        vocab_rows(spec.arch.vocab / spec.layout.tp),
        lm_head(ctx, detail::LinearSpec{"lm_head", ctx.shapes.tokens, ctx.shapes.hidden, vocab_rows, 1,
                                        kernels::Precision::bf16}) {
    const kernels::RankShapes& r = ctx.shapes;
    ctx.init_scales();
    lm_head.allocate();
    table = ctx.alloc(bf16_bytes(vocab_rows * r.hidden));
    table_grad = ctx.alloc(f32_bytes(vocab_rows * r.hidden));
    fill_uniform(table.as<bf16>(), vocab_rows * r.hidden, ctx.next_seed(), 1.0f, ctx.s());
    DGX_CUDA_CHECK(cudaMemsetAsync(table_grad.get(), 0, table_grad.bytes(), ctx.s()));
    gamma = ctx.alloc(bf16_bytes(r.hidden));
    fill_uniform(gamma.as<bf16>(), r.hidden, ctx.next_seed(), 0.1f, ctx.s(), 1.0f);
    beta = ctx.alloc(spec.arch.norm == kernels::Norm::layernorm ? bf16_bytes(r.hidden) : 0);
    if (beta) {
      fill_uniform(beta.as<bf16>(), r.hidden, ctx.next_seed(), 0.1f, ctx.s());
    }
    gamma_grad = ctx.alloc(f32_bytes(r.hidden));
    beta_grad = ctx.alloc(beta ? f32_bytes(r.hidden) : 0);
    ids = ctx.alloc(std::size_t(r.tokens) * sizeof(std::int32_t));
    targets = ctx.alloc(std::size_t(r.tokens) * sizeof(std::int32_t));
    // Ids over the whole vocabulary: this rank's shard holds 1/tp of them, as with vocabulary parallelism.
    fill_indices(ids.as<std::int32_t>(), r.tokens, ctx.next_seed(), static_cast<std::int32_t>(spec.arch.vocab),
                 ctx.s());
    fill_indices(targets.as<std::int32_t>(), r.tokens, ctx.next_seed(), static_cast<std::int32_t>(vocab_rows), ctx.s());
    hidden_states = ctx.alloc(bf16_bytes(r.tokens * r.hidden));
    fill_uniform(hidden_states.as<bf16>(), r.tokens * r.hidden, ctx.next_seed(), 1.0f, ctx.s());
    head_input = ctx.alloc(bf16_bytes(r.tokens * r.hidden));
    fill_uniform(head_input.as<bf16>(), r.tokens * r.hidden, ctx.next_seed(), 1.0f, ctx.s());
    loss = ctx.alloc(f32_bytes(r.tokens));
    norm_workspace = ctx.alloc(norm_backward_workspace_bytes(r.hidden));
    lm_head.tune();
    ctx.stream.synchronize();
  }

  void step();

  DeviceProperties device;
  detail::Context ctx;
  std::int64_t vocab_rows;
  detail::Linear lm_head;
  DeviceBuffer table, table_grad, gamma, beta, gamma_grad, beta_grad, ids, targets, hidden_states, head_input, loss;
  DeviceBuffer norm_workspace;
};

void StageOps::Impl::step() {
  const kernels::RankShapes& r = ctx.shapes;
  const std::int64_t t = r.tokens, ts = r.sp_tokens, h = r.hidden, v = vocab_rows;
  const kernels::Norm norm = ctx.spec.arch.norm;
  auto& rec = ctx.recorder;
  const cudaStream_t s = ctx.s();
  // First stage: the lookup of every local token (masked to this rank's rows).
  DeviceBuffer embedded = ctx.alloc(bf16_bytes(t * h));
  rec.op(memory_op("embedding", kernels::Pass::forward, 2.0 * double(t * h) * 2.0),
         [&] { embedding_forward(ids.as<std::int32_t>(), t, table.as<bf16>(), 0, v, h, embedded.as<bf16>(), s); });
  // Last stage: final norm on the sequence-parallel shard, LM head on the gathered tokens, loss.
  DeviceBuffer mean = ctx.alloc(beta ? f32_bytes(ts) : 0), rstd = ctx.alloc(f32_bytes(ts));
  rec.op(memory_op("final_norm", kernels::Pass::forward, 2.0 * double(ts * h) * 2.0), [&] {
    norm_forward(norm, hidden_states.as<bf16>(), gamma.as<bf16>(), beta.as<bf16>(), head_input.as<bf16>(),
                 mean.as<float>(), rstd.as<float>(), ts, h, s);
  });
  DeviceBuffer logits = ctx.alloc(bf16_bytes(t * v));
  lm_head.forward(head_input.as<bf16>(), logits.as<bf16>());
  DeviceBuffer lse = ctx.alloc(f32_bytes(t));
  rec.op(memory_op("cross_entropy", kernels::Pass::forward, 2.0 * double(t * v) * 2.0), [&] {
    cross_entropy_forward(logits.as<bf16>(), targets.as<std::int32_t>(), t, v, loss.as<float>(), lse.as<float>(), s);
  });
  // Backward, last stage first.
  DeviceBuffer d_logits = ctx.alloc(bf16_bytes(t * v));
  rec.op(memory_op("cross_entropy", kernels::Pass::backward, 2.0 * double(t * v) * 2.0), [&] {
    cross_entropy_backward(logits.as<bf16>(), targets.as<std::int32_t>(), lse.as<float>(), t, v, 1.0f / float(t),
                           d_logits.as<bf16>(), s);
  });
  logits.reset();
  DeviceBuffer d_head_input = ctx.alloc(bf16_bytes(t * h));
  lm_head.backward(d_logits.as<bf16>(), d_head_input.as<bf16>());
  d_logits.reset();
  DeviceBuffer d_hidden = ctx.alloc(bf16_bytes(ts * h));
  rec.op(memory_op("final_norm", kernels::Pass::backward, 3.0 * double(ts * h) * 2.0), [&] {
    norm_backward(norm, hidden_states.as<bf16>(), gamma.as<bf16>(), mean.as<float>(), rstd.as<float>(),
                  d_head_input.as<bf16>(), d_hidden.as<bf16>(), gamma_grad.as<float>(), beta_grad.as<float>(),
                  norm_workspace.get(), ts, h, s);
  });
  // First stage backward: the scatter-add of the output gradient into the FP32 table gradient (the first layer's
  // input gradient would arrive here; any [tokens, hidden] values serve).
  rec.op(memory_op("embedding", kernels::Pass::backward, double(t * h) * (2.0 + 8.0)), [&] {
    embedding_backward(ids.as<std::int32_t>(), t, embedded.as<bf16>(), 0, v, h, table_grad.as<float>(), s);
  });
}

StageOps::StageOps(const kernels::LayerSpec& spec, const LayerOptions& options) {
  validate(spec);
  if (spec.arch.vocab <= 0 || spec.arch.vocab % spec.layout.tp != 0) {
    throw std::invalid_argument("stage ops: vocab must be positive and a multiple of tp");
  }
  impl_ = std::make_unique<Impl>(spec, options);
}

StageOps::~StageOps() {
  if (impl_) {
    cudaStreamSynchronize(impl_->ctx.s());
  }
}

std::vector<kernels::OpTiming> StageOps::profile(int repeats) {
  detail::Context& ctx = impl_->ctx;
  impl_->step();  // warm-up
  for (int i = 0; i < std::max(1, repeats); ++i) {
    ctx.recorder.begin_step(true);
    impl_->step();
    ctx.stream.synchronize();
    ctx.recorder.collect();
  }
  ctx.recorder.begin_step(false);
  return ctx.recorder.results();
}

float StageOps::last_loss() {
  detail::Context& ctx = impl_->ctx;
  const auto tokens = static_cast<std::size_t>(ctx.shapes.tokens);
  std::vector<float> host(tokens);
  ctx.stream.synchronize();
  DGX_CUDA_CHECK(cudaMemcpy(host.data(), impl_->loss.get(), tokens * sizeof(float), cudaMemcpyDeviceToHost));
  return std::accumulate(host.begin(), host.end(), 0.0f) / float(tokens);
}

}  // namespace dgx::llm::cuda
