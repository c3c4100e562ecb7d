#include "linear.hpp"

#include "dgx/llm/cuda/check.hpp"

#include <cmath>

namespace dgx::llm::cuda::detail {

namespace {

/// Largest power of two (at most 256) dividing `bytes`: the alignment a batch of operands keeps.
std::uint32_t alignment_of(std::int64_t bytes) {
  std::uint32_t alignment = 256;
  while (alignment > 1 && bytes % alignment != 0) {
    alignment /= 2;
  }
  return alignment;
}

std::uint32_t batch_alignment(const GemmDesc& d) {
  if (d.batch == 1) {
    return 256;
  }
  std::uint32_t a = alignment_of(d.stride_a * std::int64_t(element_bytes(d.a_type)));
  a = std::min(a, alignment_of(d.stride_b * std::int64_t(element_bytes(d.b_type))));
  return std::min(a, alignment_of(d.stride_d * std::int64_t(element_bytes(d.d_type))));
}

}  // namespace

Linear::Linear(Context& ctx, LinearSpec spec, LinearTraining training)
    : ctx_(ctx), spec_(std::move(spec)), frozen_(training.frozen) {
  if (training.lora) {
    adapter_ = std::make_unique<LoraAdapter>(ctx_, *training.lora);
  }
  if (fp8()) {
    scale_weight_ = ctx_.add_scale(false);
    scale_input_ = ctx_.add_scale(false);
    scale_grad_ = ctx_.add_scale(true);
  }
}

Linear::~Linear() = default;

GemmDesc Linear::forward_desc() const {
  const LinearSpec& s = spec_;
  GemmDesc d;
  d.m = s.rows, d.n = s.out, d.k = s.in;
  d.a_type = d.b_type = fp8() ? DType::fp8_e4m3 : DType::bf16;
  d.d_type = DType::bf16;
  d.b_transposed = true;
  d.fast_accum = fp8();  // Transformer Engine's forward GEMMs use Hopper's fast accumulation
  d.batch = s.groups, d.stride_a = s.rows * s.in, d.stride_b = s.out * s.in, d.stride_d = s.rows * s.out;
  d.alignment = batch_alignment(d);
  return d;
}

GemmDesc Linear::dgrad_desc() const {
  const LinearSpec& s = spec_;
  GemmDesc d;
  d.m = s.rows, d.n = s.in, d.k = s.out;
  d.a_type = fp8() ? DType::fp8_e5m2 : DType::bf16;
  d.b_type = fp8() ? DType::fp8_e4m3 : DType::bf16;
  d.d_type = DType::bf16;
  d.b_transposed = fp8();  // BF16: W [out, in] is already [k, n]; FP8: the transposed copy [in, out] = [n, k]
  d.batch = s.groups, d.stride_a = s.rows * s.out, d.stride_b = s.out * s.in, d.stride_d = s.rows * s.in;
  d.alignment = batch_alignment(d);
  return d;
}

GemmDesc Linear::wgrad_desc() const {
  const LinearSpec& s = spec_;
  GemmDesc d;
  d.m = s.out, d.n = s.in, d.k = s.rows;
  d.d_type = DType::fp32;
  d.accumulate = true;  // gradient accumulation into the FP32 main gradient
  d.batch = s.groups, d.stride_d = s.out * s.in;
  if (fp8()) {
    // dyᵀ [out, groups·rows] and xᵀ [in, groups·rows]: group g's K block starts at column g·rows.
    d.a_type = DType::fp8_e5m2, d.b_type = DType::fp8_e4m3;
    d.a_transposed = false, d.b_transposed = true;
    d.lda = d.ldb = total_rows();
    d.stride_a = d.stride_b = s.rows;
  } else {
    d.a_type = d.b_type = DType::bf16;
    d.a_transposed = true, d.b_transposed = false;  // dy [rows, out] = [k, m], x [rows, in] = [k, n]
    d.stride_a = s.rows * s.out, d.stride_b = s.rows * s.in;
  }
  d.alignment = batch_alignment(d);
  return d;
}

void Linear::allocate() {
  const auto n = static_cast<std::size_t>(weight_elements());
  weight_ = ctx_.alloc(n * sizeof(bf16));
  ctx_.weight_bytes += n * sizeof(bf16);
  fill_uniform(weight(), weight_elements(), ctx_.next_seed(), float(1.0 / std::sqrt(double(spec_.in))), ctx_.s());
  if (!frozen_) {
    gradient_ = ctx_.alloc(n * sizeof(float));
    ctx_.gradient_bytes += n * sizeof(float);
    DGX_CUDA_CHECK(cudaMemsetAsync(gradient(), 0, n * sizeof(float), ctx_.s()));
  }
  if (fp8()) {
    weight_fp8_ = ctx_.alloc(n);
    weight_fp8_t_ = ctx_.alloc(n);
    ctx_.weight_bytes += 2 * n;
  }
  forward_ = std::make_unique<Gemm>(ctx_.blas, forward_desc(), ctx_.gemm_candidates);
  dgrad_ = std::make_unique<Gemm>(ctx_.blas, dgrad_desc(), ctx_.gemm_candidates);
  if (!frozen_) {
    wgrad_ = std::make_unique<Gemm>(ctx_.blas, wgrad_desc(), ctx_.gemm_candidates);
  }
  if (adapter_) {
    adapter_->allocate();
  }
}

void Linear::refresh_fp8_weights() {
  if (!fp8()) {
    return;
  }
  const LinearSpec& s = spec_;
  fp8_amax(weight(), weight_elements(), ctx_.scale(scale_weight_), ctx_.s());
  for (std::int64_t g = 0; g < s.groups; ++g) {
    const std::int64_t offset = g * s.out * s.in;
    fp8_cast_transpose(weight() + offset, s.out, s.in, weight_fp8_.as<std::uint8_t>() + offset,
                       weight_fp8_t_.as<std::uint8_t>() + offset, false, ctx_.scale(scale_weight_), true, ctx_.s());
  }
}

void Linear::tune() {
  const std::int64_t rows = total_rows();
  const std::size_t in_elems = std::size_t(rows * spec_.in), out_elems = std::size_t(rows * spec_.out);
  DeviceBuffer x = ctx_.alloc(in_elems * sizeof(bf16)), dy = ctx_.alloc(out_elems * sizeof(bf16));
  DeviceBuffer y = ctx_.alloc(out_elems * sizeof(bf16)), dx = ctx_.alloc(in_elems * sizeof(bf16));
  fill_uniform(x.as<bf16>(), rows * spec_.in, ctx_.next_seed(), 1.0f, ctx_.s());
  fill_uniform(dy.as<bf16>(), rows * spec_.out, ctx_.next_seed(), 1.0f, ctx_.s());
  if (adapter_) {
    adapter_->tune();
  }
  if (!fp8()) {
    forward_->tune(x.get(), weight(), y.get(), ctx_.s());
    dgrad_->tune(dy.get(), weight(), dx.get(), ctx_.s());
    if (wgrad_) {
      wgrad_->tune(dy.get(), x.get(), gradient(), ctx_.s());
    }
  } else {
    refresh_fp8_weights();
    DeviceBuffer x8 = ctx_.alloc(in_elems), x8t = ctx_.alloc(in_elems);
    DeviceBuffer dy8 = ctx_.alloc(out_elems), dy8t = ctx_.alloc(out_elems);
    fp8_amax(x.as<bf16>(), rows * spec_.in, ctx_.scale(scale_input_), ctx_.s());
    fp8_cast_transpose(x.as<bf16>(), rows, spec_.in, x8.get(), x8t.get(), false, ctx_.scale(scale_input_), true,
                       ctx_.s());
    fp8_amax(dy.as<bf16>(), rows * spec_.out, ctx_.scale(scale_grad_), ctx_.s());
    fp8_cast_transpose(dy.as<bf16>(), rows, spec_.out, dy8.get(), dy8t.get(), true, ctx_.scale(scale_grad_), true,
                       ctx_.s());
    const float* sw = ctx_.scale_inv(scale_weight_);
    const float* sx = ctx_.scale_inv(scale_input_);
    const float* sg = ctx_.scale_inv(scale_grad_);
    forward_->tune(x8.get(), weight_fp8_.get(), y.get(), ctx_.s(), sx, sw);
    dgrad_->tune(dy8.get(), weight_fp8_t_.get(), dx.get(), ctx_.s(), sg, sw);
    if (wgrad_) {
      wgrad_->tune(dy8t.get(), x8t.get(), gradient(), ctx_.s(), sg, sx);
    }
  }
  if (wgrad_) {
    DGX_CUDA_CHECK(cudaMemsetAsync(gradient(), 0, std::size_t(weight_elements()) * sizeof(float), ctx_.s()));
  }
}

void Linear::cast(const std::string& name, kernels::Pass pass, const bf16* x, std::int64_t cols, int scale, bool e5m2,
                  void* out, void* out_t) {
  const std::int64_t rows = total_rows();
  const double elements = double(rows * cols);
  const bool current = ctx_.current_scaling();
  // Read once (twice with current scaling's amax pass), write the FP8 copy and its transpose.
  const double bytes = elements * (current ? 4.0 : 2.0) + elements * ((out ? 1.0 : 0.0) + (out_t ? 1.0 : 0.0));
  ctx_.recorder.op(memory_op(name, pass, bytes), [&] {
    if (current) {
      fp8_amax(x, rows * cols, ctx_.scale(scale), ctx_.s());
    }
    fp8_cast_transpose(x, rows, cols, out, out_t, e5m2, ctx_.scale(scale), current, ctx_.s());
  });
}

void Linear::forward(const bf16* x, bf16* y) {
  const GemmDesc& d = forward_->desc();
  saved_input_ = reads_input() ? x : nullptr;
  if (!fp8()) {
    ctx_.recorder.op(gemm_op(spec_.name, kernels::Pass::forward, d), [&] { forward_->run(x, weight(), y, ctx_.s()); });
  } else {
    const std::size_t elements = std::size_t(total_rows() * spec_.in);
    DeviceBuffer x8 = ctx_.alloc(elements);
    // Only the weight gradient reads the transposed copy of the input.
    saved_input_fp8_t_ = ctx_.alloc(frozen_ ? 0 : elements);
    cast("cast_" + spec_.name + "_input", kernels::Pass::forward, x, spec_.in, scale_input_, false, x8.get(),
         saved_input_fp8_t_.get());
    ctx_.recorder.op(gemm_op(spec_.name, kernels::Pass::forward, d), [&] {
      forward_->run(x8.get(), weight_fp8_.get(), y, ctx_.s(), ctx_.scale_inv(scale_input_),
                    ctx_.scale_inv(scale_weight_));
    });
  }
  if (adapter_) {
    adapter_->forward(x, y);
  }
}

void Linear::backward(const bf16* dy, bf16* dx) {
  if (!fp8()) {
    if (dx != nullptr) {
      ctx_.recorder.op(gemm_op(spec_.name, kernels::Pass::dgrad, dgrad_->desc()),
                       [&] { dgrad_->run(dy, weight(), dx, ctx_.s()); });
    }
    if (wgrad_) {
      ctx_.recorder.op(gemm_op(spec_.name, kernels::Pass::wgrad, wgrad_->desc()),
                       [&] { wgrad_->run(dy, saved_input_, gradient(), ctx_.s()); });
    }
  } else {
    backward_fp8(dy, dx);
  }
  if (adapter_) {
    adapter_->backward(dy, saved_input_, dx);
  }
  saved_input_ = nullptr;
}

void Linear::backward_fp8(const bf16* dy, bf16* dx) {
  const std::size_t elements = std::size_t(total_rows() * spec_.out);
  DeviceBuffer dy8 = ctx_.alloc(dx != nullptr ? elements : 0), dy8t = ctx_.alloc(wgrad_ ? elements : 0);
  cast("cast_" + spec_.name + "_grad", kernels::Pass::backward, dy, spec_.out, scale_grad_, true, dy8.get(),
       dy8t.get());
  const float* sg = ctx_.scale_inv(scale_grad_);
  if (dx != nullptr) {
    ctx_.recorder.op(gemm_op(spec_.name, kernels::Pass::dgrad, dgrad_->desc()), [&] {
      dgrad_->run(dy8.get(), weight_fp8_t_.get(), dx, ctx_.s(), sg, ctx_.scale_inv(scale_weight_));
    });
  }
  if (wgrad_) {
    ctx_.recorder.op(gemm_op(spec_.name, kernels::Pass::wgrad, wgrad_->desc()), [&] {
      wgrad_->run(dy8t.get(), saved_input_fp8_t_.get(), gradient(), ctx_.s(), sg, ctx_.scale_inv(scale_input_));
    });
  }
  saved_input_fp8_t_.reset();
}

void Linear::release_saved() {
  saved_input_ = nullptr;
  saved_input_fp8_t_.reset();
  if (adapter_) {
    adapter_->release_saved();
  }
}

}  // namespace dgx::llm::cuda::detail
