#include "dgx/llm/cuda/layer.hpp"

#include "dgx/llm/cuda/check.hpp"
#include "layer_impl.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>

namespace dgx::llm::cuda {

using detail::Linear;
using detail::LinearSpec;

namespace {

std::size_t bf16_bytes(std::int64_t elements) { return static_cast<std::size_t>(elements) * sizeof(bf16); }

}  // namespace

TransformerLayer::Impl::Impl(const kernels::LayerSpec& spec, const LayerOptions& options)
    : device(current_device()), ctx(spec, std::max(1, options.gemm_candidates), options.seed) {
  const kernels::RankShapes& r = ctx.shapes;
  const kernels::Architecture& a = spec.arch;
  const kernels::Lora& lora = spec.lora;
  const auto linear = [&](std::string name, std::int64_t rows, std::int64_t in, std::int64_t out, std::int64_t groups,
                          kernels::Precision precision, bool adapted = false, bool column = true) {
    detail::LinearTraining training{.frozen = lora.enabled(), .lora = std::nullopt};
    if (adapted) {
      training.lora = detail::LoraSpec{.name = name,
                                       .rows = rows,
                                       .in = in,
                                       .out = out,
                                       .rank = lora.rank,
                                       .tp = spec.layout.tp,
                                       .column = column,
                                       .scale = float(lora.scale())};
    }
    return std::make_unique<Linear>(ctx, LinearSpec{std::move(name), rows, in, out, groups, precision},
                                    std::move(training));
  };
  qkv = linear("qkv", r.tokens, r.hidden, r.qkv_width, 1, spec.precision, lora.qkv, true);
  proj = linear("proj", r.tokens, r.q_heads * r.head_dim, r.hidden, 1, spec.precision, lora.proj, false);
  if (a.moe()) {
    router = linear("router", r.sp_tokens, r.hidden, a.experts, 1, kernels::Precision::bf16);  // BF16 in every recipe
    expert_fc1 = linear("expert_fc1", r.rows_per_expert, r.hidden, r.fc1_width, r.local_experts, spec.precision);
    expert_fc2 = linear("expert_fc2", r.rows_per_expert, r.ffn, r.hidden, r.local_experts, spec.precision);
  } else {
    fc1 = linear("fc1", r.tokens, r.hidden, r.fc1_width, 1, spec.precision, lora.fc1, true);
    fc2 = linear("fc2", r.tokens, r.ffn, r.hidden, 1, spec.precision, lora.fc2, false);
  }
  ctx.init_scales();
  allocate_parameters();
  allocate_activations();
  build_attention();
  tune();
}

void TransformerLayer::Impl::allocate_parameters() {
  const std::int64_t h = ctx.shapes.hidden;
  for (NormParameters* norm : {&norm_attn, &norm_mlp}) {
    norm->gamma = ctx.alloc(bf16_bytes(h));
    norm->gamma_grad = ctx.alloc(h * sizeof(float));
    fill_uniform(norm->gamma.as<bf16>(), h, ctx.next_seed(), 0.1f, ctx.s(), 1.0f);
    DGX_CUDA_CHECK(cudaMemsetAsync(norm->gamma_grad.get(), 0, norm->gamma_grad.bytes(), ctx.s()));
    ctx.weight_bytes += bf16_bytes(h);
    ctx.gradient_bytes += h * sizeof(float);
    if (layernorm()) {
      norm->beta = ctx.alloc(bf16_bytes(h));
      norm->beta_grad = ctx.alloc(h * sizeof(float));
      fill_uniform(norm->beta.as<bf16>(), h, ctx.next_seed(), 0.1f, ctx.s());
      DGX_CUDA_CHECK(cudaMemsetAsync(norm->beta_grad.get(), 0, norm->beta_grad.bytes(), ctx.s()));
      ctx.weight_bytes += bf16_bytes(h);
      ctx.gradient_bytes += h * sizeof(float);
    }
  }
  for (Linear* l : {qkv.get(), proj.get(), fc1.get(), fc2.get(), router.get(), expert_fc1.get(), expert_fc2.get()}) {
    if (l != nullptr) {
      l->allocate();
    }
  }
}

void TransformerLayer::Impl::allocate_activations() {
  const kernels::RankShapes& r = ctx.shapes;
  const std::int64_t t = r.tokens, ts = r.sp_tokens, h = r.hidden;
  const auto random = [&](DeviceBuffer& buffer, std::int64_t elements) {
    buffer = ctx.alloc(bf16_bytes(elements));
    fill_uniform(buffer.as<bf16>(), elements, ctx.next_seed(), 1.0f, ctx.s());
  };
  random(x, ts * h);
  random(dy, t * h);  // the output gradient gathered over TP: rows beyond ts stand for the other ranks'
  random(qkv_input, t * h);
  random(fc1_input, t * h);
  random(proj_grad, t * h);
  y = ctx.alloc(bf16_bytes(ts * h));
  dx = ctx.alloc(bf16_bytes(ts * h));
  norm_workspace = ctx.alloc(norm_backward_workspace_bytes(h));
  if (ctx.spec.arch.rope) {
    rope_table = ctx.alloc(static_cast<std::size_t>(r.q_len * r.head_dim / 2) * sizeof(float2));
    cuda::rope_table(rope_table.as<float2>(), r.q_len, r.head_dim, ctx.spec.arch.rope_theta, ctx.s());
  }
  if (ctx.spec.arch.moe()) {
    router_grad = ctx.alloc(bf16_bytes(ts * ctx.spec.arch.experts));
    DGX_CUDA_CHECK(cudaMemsetAsync(router_grad.get(), 0, router_grad.bytes(), ctx.s()));
  }
  // Outside the pool: flushing L2 is the harness's memory, not the layer's.
  l2_flush = DeviceBuffer(std::max<std::size_t>(2 * device.l2_bytes, std::size_t{1} << 20));
}

void TransformerLayer::Impl::build_attention() {
  const kernels::RankShapes& r = ctx.shapes;
  AttentionConfig local;
  local.batch = r.attention_batch;
  local.q_heads = r.q_heads;
  local.kv_heads = r.kv_heads;
  local.q_len = local.kv_len = r.q_len;
  local.head_dim = r.head_dim;
  local.causal = true;
  local.q_stride = local.kv_stride = r.qkv_width;
  local.o_stride = r.q_heads * r.head_dim;
  steps.push_back({local, std::make_shared<FlashAttention>(ctx.cudnn, local)});
  if (r.attention_steps > 1) {
    // Load-balanced ring: every other step pairs the local chunk with half a chunk, unmasked.
    AttentionConfig ring = local;
    ring.causal = false;
    ring.kv_len = r.q_len / 2;
    ring.kv_stride = 2 * r.kv_heads * r.head_dim;
    const std::int64_t rows = r.attention_batch * ring.kv_len;
    kv_ring = ctx.alloc(bf16_bytes(rows * ring.kv_stride));
    fill_uniform(kv_ring.as<bf16>(), rows * ring.kv_stride, ctx.next_seed(), 1.0f, ctx.s());
    const auto attention = std::make_shared<FlashAttention>(ctx.cudnn, ring);
    for (int i = 1; i < r.attention_steps; ++i) {
      steps.push_back({ring, attention});
    }
  }
  std::size_t forward_bytes = 0, backward_bytes = 0;
  for (const AttentionStep& step : steps) {
    forward_bytes = std::max(forward_bytes, step.attention->forward_workspace_bytes());
    backward_bytes = std::max(backward_bytes, step.attention->backward_workspace_bytes());
  }
  attention_forward_workspace = ctx.alloc(forward_bytes);
  attention_backward_workspace = ctx.alloc(backward_bytes);
}

void TransformerLayer::Impl::tune() {
  for (Linear* l : {qkv.get(), proj.get(), fc1.get(), fc2.get(), router.get(), expert_fc1.get(), expert_fc2.get()}) {
    if (l == nullptr) {
      continue;
    }
    l->refresh_fp8_weights();
    l->tune();
  }
  ctx.init_scales();  // tuning cast scratch data with the layer's scales: start their histories afresh
  for (Linear* l : {qkv.get(), proj.get(), fc1.get(), fc2.get(), router.get(), expert_fc1.get(), expert_fc2.get()}) {
    if (l != nullptr) {
      l->refresh_fp8_weights();
    }
  }
  ctx.stream.synchronize();
  ctx.pool.reset_peak();
}

namespace {
const kernels::LayerSpec& validated(const kernels::LayerSpec& spec) {
  validate(spec);  // before anything derives shapes from it
  return spec;
}
}  // namespace

TransformerLayer::TransformerLayer(const kernels::LayerSpec& spec, const LayerOptions& options)
    : impl_(std::make_unique<Impl>(validated(spec), options)) {}

TransformerLayer::~TransformerLayer() {
  if (impl_) {
    cudaStreamSynchronize(impl_->ctx.s());  // let queued work finish before its buffers go
  }
}

const kernels::LayerSpec& TransformerLayer::spec() const { return impl_->ctx.spec; }
const kernels::RankShapes& TransformerLayer::shapes() const { return impl_->ctx.shapes; }
std::string TransformerLayer::device_name() const { return impl_->device.name; }

void TransformerLayer::forward() {
  impl_->forward_pass();
  impl_->forward_done = true;
  if (impl_->ctx.spec.recompute == kernels::Recompute::full) {
    impl_->release_saved();  // keep only the layer input
  }
}

void TransformerLayer::backward() {
  impl_->backward_pass();
  impl_->forward_done = false;
}

void TransformerLayer::step() {
  forward();
  backward();
  detail::Context& ctx = impl_->ctx;
  if (ctx.fp8() && !ctx.current_scaling()) {
    ctx.recorder.op(detail::memory_op("fp8_scale_update", kernels::Pass::backward, 0.0), [&] { ctx.update_scales(); });
  }
}

void TransformerLayer::synchronize() { impl_->ctx.stream.synchronize(); }

double TransformerLayer::time_steps(int steps, bool flush_l2) {
  steps = std::max(1, steps);
  if (flush_l2) {
    DGX_CUDA_CHECK(cudaMemsetAsync(impl_->l2_flush.get(), 0, impl_->l2_flush.bytes(), impl_->ctx.s()));
  }
  Event start, stop;
  start.record(impl_->ctx.s());
  for (int i = 0; i < steps; ++i) {
    step();
  }
  stop.record(impl_->ctx.s());
  stop.synchronize();
  return double(stop.milliseconds_since(start)) * 1e-3;
}

MemoryUse TransformerLayer::measure_memory() {
  detail::Context& ctx = impl_->ctx;
  ctx.stream.synchronize();
  ctx.pool.reset_peak();
  const std::uint64_t before = ctx.pool.used_bytes();
  forward();
  ctx.stream.synchronize();
  const std::uint64_t after_forward = ctx.pool.used_bytes();
  backward();
  ctx.update_scales();
  ctx.stream.synchronize();
  MemoryUse use;
  use.peak = ctx.pool.peak_used_bytes();
  use.weights = ctx.weight_bytes;
  use.gradients = ctx.gradient_bytes;
  use.activations = after_forward > before ? after_forward - before : 0;
  use.workspace = BlasLt::kWorkspaceBytes + impl_->attention_forward_workspace.bytes() +
                  impl_->attention_backward_workspace.bytes() + impl_->norm_workspace.bytes();
  return use;
}

kernels::LayerTiming TransformerLayer::profile(int repeats) {
  repeats = std::max(1, repeats);
  detail::Context& ctx = impl_->ctx;
  step();  // warm-up
  for (int r = 0; r < repeats; ++r) {
    ctx.recorder.begin_step(true);
    step();
    ctx.stream.synchronize();
    ctx.recorder.collect();
  }
  ctx.recorder.begin_step(false);
  kernels::LayerTiming timing;
  timing.ops = ctx.recorder.results();
  for (const kernels::OpTiming& op : timing.ops) {
    (op.pass == kernels::Pass::forward && !op.recompute ? timing.forward_seconds : timing.backward_seconds) +=
        op.seconds;
  }
  timing.step_seconds = time_steps(repeats, false) / repeats;
  timing.model_flops = model_flops(ctx.spec);
  const MemoryUse memory = measure_memory();
  timing.peak_bytes = memory.peak;
  timing.weight_bytes = memory.weights;
  timing.gradient_bytes = memory.gradients;
  timing.activation_bytes = memory.activations;
  return timing;
}

TransformerLayer::Impl::TensorRef TransformerLayer::Impl::tensor(const std::string& name) {
  Impl& m = *this;
  const kernels::RankShapes& r = m.ctx.shapes;
  const std::int64_t ts = r.sp_tokens, h = r.hidden;
  if (name == "x") {
    return {m.x.get(), ts * h, false, nullptr};
  }
  if (name == "y") {
    return {m.y.get(), ts * h, false, nullptr};
  }
  if (name == "dx") {
    return {m.dx.get(), ts * h, false, nullptr};
  }
  if (name == "dy") {
    return {m.dy.get(), r.tokens * h, false, nullptr};
  }
  const bool grad = name.size() > 5 && name.compare(name.size() - 5, 5, ".grad") == 0;
  const std::string base = grad ? name.substr(0, name.size() - 5) : name;
  for (auto* norm : {&m.norm_attn, &m.norm_mlp}) {
    const std::string prefix = norm == &m.norm_attn ? "norm_attn." : "norm_mlp.";
    if (base == prefix + "gamma") {
      return {grad ? norm->gamma_grad.get() : norm->gamma.get(), h, grad, nullptr};
    }
    if (base == prefix + "beta" && m.layernorm()) {
      return {grad ? norm->beta_grad.get() : norm->beta.get(), h, grad, nullptr};
    }
  }
  for (Linear* l :
       {m.qkv.get(), m.proj.get(), m.fc1.get(), m.fc2.get(), m.router.get(), m.expert_fc1.get(), m.expert_fc2.get()}) {
    if (l == nullptr) {
      continue;
    }
    if (const detail::LoraAdapter* a = l->adapter(); a != nullptr) {
      if (base == l->spec().name + ".lora_a") {
        return {grad ? a->a_grad() : (void*)a->a(), a->a_elements(), grad, nullptr};
      }
      if (base == l->spec().name + ".lora_b") {
        return {grad ? a->b_grad() : (void*)a->b(), a->b_elements(), grad, nullptr};
      }
    }
    if (base != l->spec().name + ".weight") {
      continue;
    }
    if (grad && l->gradient() == nullptr) {
      throw std::invalid_argument("TransformerLayer: '" + name + "' does not exist: the weight is frozen (LoRA)");
    }
    if (grad) {
      return {l->gradient(), l->weight_elements(), true, nullptr};
    }
    return {l->weight(), l->weight_elements(), false, l};
  }
  throw std::invalid_argument("TransformerLayer: no tensor named '" + name + "'");
}

std::vector<std::string> TransformerLayer::parameter_names() const {
  if (impl_->ctx.spec.lora.enabled()) {  // the adapters are what trains
    std::vector<std::string> names;
    for (const detail::Linear* l : {impl_->qkv.get(), impl_->proj.get(), impl_->fc1.get(), impl_->fc2.get()}) {
      if (l != nullptr && l->adapter() != nullptr) {
        names.insert(names.end(), {l->spec().name + ".lora_a", l->spec().name + ".lora_b"});
      }
    }
    return names;
  }
  std::vector<std::string> names = {"norm_attn.gamma"};
  if (impl_->layernorm()) {
    names.emplace_back("norm_attn.beta");
  }
  names.insert(names.end(), {"qkv.weight", "proj.weight", "norm_mlp.gamma"});
  if (impl_->layernorm()) {
    names.emplace_back("norm_mlp.beta");
  }
  if (impl_->ctx.spec.arch.moe()) {
    names.insert(names.end(), {"router.weight", "expert_fc1.weight", "expert_fc2.weight"});
  } else {
    names.insert(names.end(), {"fc1.weight", "fc2.weight"});
  }
  return names;
}

std::vector<float> TransformerLayer::download(const std::string& name) {
  detail::Context& ctx = impl_->ctx;
  const Impl::TensorRef t = impl_->tensor(name);
  std::vector<float> host(static_cast<std::size_t>(t.elements));
  DeviceBuffer staging = ctx.alloc(host.size() * sizeof(float));
  if (t.fp32) {
    DGX_CUDA_CHECK(cudaMemcpyAsync(staging.get(), t.data, staging.bytes(), cudaMemcpyDeviceToDevice, ctx.s()));
  } else {
    convert(static_cast<const bf16*>(t.data), staging.as<float>(), t.elements, ctx.s());
  }
  DGX_CUDA_CHECK(cudaMemcpyAsync(host.data(), staging.get(), staging.bytes(), cudaMemcpyDeviceToHost, ctx.s()));
  ctx.stream.synchronize();
  return host;
}

void TransformerLayer::upload(const std::string& name, const std::vector<float>& values) {
  detail::Context& ctx = impl_->ctx;
  const Impl::TensorRef t = impl_->tensor(name);
  if (static_cast<std::int64_t>(values.size()) != t.elements) {
    throw std::invalid_argument("TransformerLayer::upload('" + name + "'): " + std::to_string(values.size()) +
                                " values for " + std::to_string(t.elements) + " elements");
  }
  DeviceBuffer staging = ctx.alloc(values.size() * sizeof(float));
  DGX_CUDA_CHECK(cudaMemcpyAsync(staging.get(), values.data(), staging.bytes(), cudaMemcpyHostToDevice, ctx.s()));
  if (t.fp32) {
    DGX_CUDA_CHECK(cudaMemcpyAsync(t.data, staging.get(), staging.bytes(), cudaMemcpyDeviceToDevice, ctx.s()));
  } else {
    convert(staging.as<float>(), static_cast<bf16*>(t.data), t.elements, ctx.s());
  }
  if (t.linear != nullptr) {
    t.linear->refresh_fp8_weights();
  }
  ctx.stream.synchronize();
}

void TransformerLayer::zero_gradients() {
  for (const std::string& name : parameter_names()) {
    const Impl::TensorRef t = impl_->tensor(name + ".grad");
    DGX_CUDA_CHECK(cudaMemsetAsync(t.data, 0, static_cast<std::size_t>(t.elements) * sizeof(float), impl_->ctx.s()));
  }
  impl_->ctx.stream.synchronize();
}

}  // namespace dgx::llm::cuda
