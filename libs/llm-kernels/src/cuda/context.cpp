#include "context.hpp"

#include "dgx/llm/cuda/check.hpp"

#include <algorithm>

namespace dgx::llm::cuda::detail {

Recorder::Slot& Recorder::next_slot() {
  if (next_ == slots_.size()) {
    slots_.emplace_back();
  }
  used_ = std::max(used_, next_ + 1);
  return slots_[next_++];
}

void Recorder::collect() {
  for (std::size_t i = 0; i < next_; ++i) {
    Slot& slot = slots_[i];
    slot.stop.synchronize();
    slot.samples.push_back(double(slot.stop.milliseconds_since(slot.start)) * 1e-3);
  }
}

std::vector<kernels::OpTiming> Recorder::results() {
  std::vector<kernels::OpTiming> out;
  for (std::size_t i = 0; i < used_; ++i) {
    Slot& slot = slots_[i];
    if (slot.samples.empty()) {
      continue;
    }
    std::vector<double> sorted = slot.samples;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t n = sorted.size();
    kernels::OpTiming op = slot.meta;
    op.seconds = n % 2 == 1 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    out.push_back(std::move(op));
    slot.samples.clear();
  }
  used_ = 0;
  return out;
}

Context::Context(const kernels::LayerSpec& layer_spec, int candidates, std::uint64_t random_seed)
    : spec(layer_spec), shapes(rank_shapes(layer_spec)), gemm_candidates(candidates), seed(random_seed),
      recorder(stream.get()) {}

int Context::add_scale(bool e5m2) {
  if (scales_) {
    throw Error(Error::Kind::runtime, "FP8 scales are registered before init_scales");
  }
  scale_e5m2_.push_back(e5m2);
  return static_cast<int>(scale_e5m2_.size()) - 1;
}

void Context::init_scales() {
  const int count = static_cast<int>(scale_e5m2_.size());
  if (count == 0) {
    return;
  }
  if (count > 64) {
    throw Error(Error::Kind::runtime, "a layer has at most 64 FP8 scales");
  }
  std::uint64_t mask = 0;
  for (int i = 0; i < count; ++i) {
    if (scale_e5m2_[std::size_t(i)]) {
      mask |= std::uint64_t{1} << i;
    }
  }
  if (!scales_) {
    scales_ = alloc(sizeof(Fp8Scale) * std::size_t(count));
  }
  fp8_init_scales(scales_.as<Fp8Scale>(), count, mask, spec.amax_history, s());
}

void Context::update_scales() {
  if (fp8() && !current_scaling()) {
    fp8_update_scales(scales_.as<Fp8Scale>(), static_cast<int>(scale_e5m2_.size()), s());
  }
}

kernels::OpTiming gemm_op(std::string name, kernels::Pass pass, const GemmDesc& desc) {
  kernels::OpTiming op;
  op.name = std::move(name);
  op.pass = pass;
  op.kind = kernels::OpKind::gemm;
  op.precision = desc.a_type == DType::bf16 ? "bf16" : "fp8";
  op.gemm = kernels::GemmDims{desc.m, desc.n, desc.k, desc.batch};
  op.flops = gemm_flops(op.gemm);
  const double groups = double(desc.batch);
  op.bytes = groups * (double(desc.m * desc.k) * double(element_bytes(desc.a_type)) +
                       double(desc.n * desc.k) * double(element_bytes(desc.b_type)) +
                       double(desc.m * desc.n) * double(element_bytes(desc.d_type)) * (desc.accumulate ? 2.0 : 1.0));
  return op;
}

kernels::OpTiming memory_op(std::string name, kernels::Pass pass, double bytes) {
  kernels::OpTiming op;
  op.name = std::move(name);
  op.pass = pass;
  op.kind = kernels::OpKind::memory;
  op.bytes = bytes;
  return op;
}

kernels::OpTiming attention_op(kernels::Pass pass, const AttentionConfig& c) {
  kernels::OpTiming op;
  op.name = "attention";
  op.pass = pass;
  op.kind = kernels::OpKind::attention;
  op.attention = kernels::AttentionDims{c.batch, c.q_heads, c.kv_heads, c.q_len, c.kv_len, c.head_dim, c.causal};
  const bool backward = pass != kernels::Pass::forward;
  op.flops = attention_flops(op.attention, backward);
  op.bytes = attention_bytes(op.attention, backward);
  return op;
}

}  // namespace dgx::llm::cuda::detail
