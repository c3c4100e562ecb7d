#include "lora.hpp"

#include "dgx/llm/cuda/check.hpp"

#include <cmath>

namespace dgx::llm::cuda::detail {

namespace {

std::size_t bf16_bytes(std::int64_t elements) { return static_cast<std::size_t>(elements) * sizeof(bf16); }

/// A BF16 GEMM D[m, n] = alpha · op(A) · op(B) (+ D), row-major, in the layouts the adapter's operands are stored.
GemmDesc bf16_gemm(std::int64_t m, std::int64_t n, std::int64_t k, bool a_transposed, bool b_transposed) {
  GemmDesc d;
  d.m = m, d.n = n, d.k = k;
  d.a_transposed = a_transposed;
  d.b_transposed = b_transposed;
  return d;
}

}  // namespace

LoraAdapter::LoraAdapter(Context& ctx, LoraSpec spec)
    : ctx_(ctx), spec_(std::move(spec)), down_name_(spec_.name + "_lora_a"), up_name_(spec_.name + "_lora_b") {}

LoraAdapter::~LoraAdapter() = default;

void LoraAdapter::allocate() {
  const LoraSpec& s = spec_;
  const std::int64_t r = s.rank, rl = local_rank();
  a_ = ctx_.alloc(bf16_bytes(a_elements()));
  b_ = ctx_.alloc(bf16_bytes(b_elements()));
  a_grad_ = ctx_.alloc(std::size_t(a_elements()) * sizeof(float));
  b_grad_ = ctx_.alloc(std::size_t(b_elements()) * sizeof(float));
  ctx_.weight_bytes += bf16_bytes(a_elements() + b_elements());
  ctx_.gradient_bytes += std::size_t(a_elements() + b_elements()) * sizeof(float);
  fill_uniform(a(), a_elements(), ctx_.next_seed(), float(1.0 / std::sqrt(double(s.in))), ctx_.s());
  fill_uniform(b(), b_elements(), ctx_.next_seed(), float(1.0 / std::sqrt(double(r))), ctx_.s());
  DGX_CUDA_CHECK(cudaMemsetAsync(a_grad(), 0, a_grad_.bytes(), ctx_.s()));
  DGX_CUDA_CHECK(cudaMemsetAsync(b_grad(), 0, b_grad_.bytes(), ctx_.s()));

  // Forward: xa[rows, r] (this rank's rl columns) = x · Aᵀ; y[up rows, out] += s · xa · Bᵀ.
  GemmDesc down = bf16_gemm(s.rows, rl, s.in, false, true);
  down.ldd = r;
  GemmDesc up = bf16_gemm(up_rows(), s.out, r, false, true);
  up.alpha = s.scale;
  up.accumulate = true;
  // Backward: dxa = s · dy · B; dB += s · dyᵀ · xa; dA += dxa[:, :rl]ᵀ · x; dx += dxa[:, :rl] · A.
  GemmDesc up_dgrad = bf16_gemm(s.rows, r, s.out, false, false);
  up_dgrad.alpha = s.scale;
  GemmDesc up_wgrad = bf16_gemm(s.out, r, s.rows, true, false);
  up_wgrad.alpha = s.scale;
  up_wgrad.d_type = DType::fp32;
  up_wgrad.accumulate = true;
  GemmDesc down_wgrad = bf16_gemm(rl, s.in, s.rows, true, false);
  down_wgrad.lda = r;
  down_wgrad.d_type = DType::fp32;
  down_wgrad.accumulate = true;
  GemmDesc down_dgrad = bf16_gemm(s.rows, s.in, rl, false, false);
  down_dgrad.lda = r;
  down_dgrad.accumulate = true;
  const int candidates = ctx_.gemm_candidates;
  down_ = std::make_unique<Gemm>(ctx_.blas, down, candidates);
  up_ = std::make_unique<Gemm>(ctx_.blas, up, candidates);
  up_dgrad_ = std::make_unique<Gemm>(ctx_.blas, up_dgrad, candidates);
  up_wgrad_ = std::make_unique<Gemm>(ctx_.blas, up_wgrad, candidates);
  down_wgrad_ = std::make_unique<Gemm>(ctx_.blas, down_wgrad, candidates);
  down_dgrad_ = std::make_unique<Gemm>(ctx_.blas, down_dgrad, candidates);
}

void LoraAdapter::tune() {
  const LoraSpec& s = spec_;
  const auto scratch = [&](std::int64_t elements) {
    DeviceBuffer buffer = ctx_.alloc(bf16_bytes(elements));
    fill_uniform(buffer.as<bf16>(), elements, ctx_.next_seed(), 1.0f, ctx_.s());
    return buffer;
  };
  DeviceBuffer x = scratch(s.rows * s.in), y = scratch(s.rows * s.out), dy = scratch(s.rows * s.out);
  DeviceBuffer dx = scratch(s.rows * s.in), xa = scratch(s.rows * s.rank), dxa = scratch(s.rows * s.rank);
  down_->tune(x.get(), a(), xa.get(), ctx_.s());
  up_->tune(xa.get(), b(), y.get(), ctx_.s());
  up_dgrad_->tune(dy.get(), b(), dxa.get(), ctx_.s());
  up_wgrad_->tune(dy.get(), xa.get(), b_grad(), ctx_.s());
  down_wgrad_->tune(dxa.get(), x.get(), a_grad(), ctx_.s());
  down_dgrad_->tune(dxa.get(), a(), dx.get(), ctx_.s());
  DGX_CUDA_CHECK(cudaMemsetAsync(a_grad(), 0, a_grad_.bytes(), ctx_.s()));
  DGX_CUDA_CHECK(cudaMemsetAsync(b_grad(), 0, b_grad_.bytes(), ctx_.s()));
}

void LoraAdapter::forward(const bf16* x, bf16* y) {
  const std::int64_t elements = spec_.rows * spec_.rank;
  xa_ = ctx_.alloc(bf16_bytes(elements));
  if (local_rank() < spec_.rank) {
    // The columns the other TP ranks compute, which the all-gather would bring: random stand-ins.
    fill_uniform(xa_.as<bf16>(), elements, ctx_.next_seed(), 1.0f, ctx_.s());
  }
  ctx_.recorder.op(gemm_op(down_name_, kernels::Pass::forward, down_->desc()),
                   [&] { down_->run(x, a(), xa_.get(), ctx_.s()); });
  ctx_.recorder.op(gemm_op(up_name_, kernels::Pass::forward, up_->desc()),
                   [&] { up_->run(xa_.get(), b(), y, ctx_.s()); });
}

void LoraAdapter::backward(const bf16* dy, const bf16* x, bf16* dx) {
  DeviceBuffer dxa = ctx_.alloc(bf16_bytes(spec_.rows * spec_.rank));
  ctx_.recorder.op(gemm_op(up_name_, kernels::Pass::dgrad, up_dgrad_->desc()),
                   [&] { up_dgrad_->run(dy, b(), dxa.get(), ctx_.s()); });
  ctx_.recorder.op(gemm_op(up_name_, kernels::Pass::wgrad, up_wgrad_->desc()),
                   [&] { up_wgrad_->run(dy, xa_.get(), b_grad(), ctx_.s()); });
  ctx_.recorder.op(gemm_op(down_name_, kernels::Pass::wgrad, down_wgrad_->desc()),
                   [&] { down_wgrad_->run(dxa.get(), x, a_grad(), ctx_.s()); });
  if (dx != nullptr) {
    ctx_.recorder.op(gemm_op(down_name_, kernels::Pass::dgrad, down_dgrad_->desc()),
                     [&] { down_dgrad_->run(dxa.get(), a(), dx, ctx_.s()); });
  }
  xa_.reset();
}

void LoraAdapter::release_saved() { xa_.reset(); }

}  // namespace dgx::llm::cuda::detail
