#include "serve_linear.hpp"

#include "dgx/llm/cuda/check.hpp"
#include "dgx/llm/cuda/kernels.hpp"
#include "dgx/llm/cuda/serve_kernels.hpp"

#include <cmath>
#include <limits>

namespace dgx::llm::cuda::detail {

namespace {

/// E4M3's largest finite value, with headroom: random weights of ±a are stored as ±a · kFp8Range / a.
constexpr float kFp8Range = 240.0f;
constexpr int kTuneRuns = 20;

float device_float(DeviceBuffer& buffer, float value) {
  buffer = DeviceBuffer(sizeof(float));
  DGX_CUDA_CHECK(cudaMemcpy(buffer.get(), &value, sizeof value, cudaMemcpyHostToDevice));
  DGX_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));  // as upload_ints: the DMA may land after the return
  return value;
}

/// Milliseconds of `runs` back-to-back launches of `enqueue` after one warm-up launch.
template <typename Enqueue> float time_runs(cudaStream_t stream, Enqueue&& enqueue) {
  enqueue();
  Event start, stop;
  start.record(stream);
  for (int i = 0; i < kTuneRuns; ++i) {
    enqueue();
  }
  stop.record(stream);
  stop.synchronize();
  return stop.milliseconds_since(start);
}

}  // namespace

ServeWeights make_serve_weights(std::int64_t in, std::int64_t out, kernels::Precision precision, std::uint64_t seed,
                                cudaStream_t stream) {
  ServeWeights w;
  w.in = in;
  w.out = out;
  w.precision = precision;
  const std::int64_t n = in * out;
  const float bound = 1.0f / std::sqrt(float(in));
  if (precision == kernels::Precision::bf16) {
    w.data = DeviceBuffer(std::size_t(n) * sizeof(bf16));
    fill_uniform(w.data.as<bf16>(), n, seed, bound, stream);
    device_float(w.scale_inv, 1.0f);
    return w;
  }
  w.data = DeviceBuffer(std::size_t(n));
  DeviceBuffer staging(std::size_t(n) * sizeof(bf16));
  fill_uniform(staging.as<bf16>(), n, seed, bound, stream);
  cast_fp8_static(staging.as<bf16>(), w.data.get(), kFp8Range / bound, n, stream);
  DGX_CUDA_CHECK(cudaStreamSynchronize(stream));  // the staging buffer goes now
  w.host_scale_inv = device_float(w.scale_inv, bound / kFp8Range);
  return w;
}

ServeGemm::ServeGemm(const BlasLt& blas, std::int64_t rows, std::int64_t in, std::int64_t out,
                     kernels::Precision precision, int candidates)
    : rows_(rows), in_(in), out_(out), precision_(precision) {
  const bool fp8 = precision == kernels::Precision::fp8;
  GemmDesc desc;
  desc.m = padded_rows(rows);
  desc.n = out;
  desc.k = in;
  desc.a_type = desc.b_type = fp8 ? DType::fp8_e4m3 : DType::bf16;
  desc.d_type = DType::bf16;
  desc.b_transposed = true;
  desc.fast_accum = fp8;
  try {
    gemm_ = std::make_unique<Gemm>(blas, desc, candidates);
  } catch (const Error& e) {
    if (e.kind() != Error::Kind::unsupported || rows > kGemvMaxRows) {
      throw;
    }
    gemm_.reset();  // the GEMV serves these few rows alone
  }
  device_float(one_, 1.0f);
  use_gemv_ = !gemm_;
}

ServeGemm::~ServeGemm() = default;

void ServeGemm::tune(const void* x, const ServeWeights& w, bf16* y, cudaStream_t stream) {
  const bool fp8 = precision_ == kernels::Precision::fp8;
  const float* a_scale = fp8 ? one_.as<float>() : nullptr;
  const float* b_scale = fp8 ? w.scale_inv.as<float>() : nullptr;
  float blas_ms = std::numeric_limits<float>::infinity();
  if (gemm_) {
    gemm_->tune(x, w.data.get(), y, stream, a_scale, b_scale);
    blas_ms = time_runs(stream, [&] { gemm_->run(x, w.data.get(), y, stream, a_scale, b_scale); });
  }
  if (rows_ <= kGemvMaxRows && in_ % 8 == 0) {
    const float gemv_ms =
        time_runs(stream, [&] { gemv(x, w.data.get(), y, rows_, out_, in_, fp8, w.host_scale_inv, stream); });
    use_gemv_ = gemv_ms < blas_ms;
  }
}

void ServeGemm::run(const void* x, const ServeWeights& w, bf16* y, cudaStream_t stream) const {
  const bool fp8 = precision_ == kernels::Precision::fp8;
  if (use_gemv_) {
    gemv(x, w.data.get(), y, rows_, out_, in_, fp8, w.host_scale_inv, stream);
    return;
  }
  gemm_->run(x, w.data.get(), y, stream, fp8 ? one_.as<float>() : nullptr, fp8 ? w.scale_inv.as<float>() : nullptr);
}

kernels::OpTiming ServeGemm::op(std::string name) const {
  kernels::OpTiming op;
  op.name = std::move(name);
  op.kind = kernels::OpKind::gemm;
  op.precision = precision_ == kernels::Precision::fp8 ? "fp8" : "bf16";
  op.gemm = kernels::GemmDims{rows_, out_, in_, 1};
  op.flops = kernels::gemm_flops(op.gemm);
  const double element = precision_ == kernels::Precision::fp8 ? 1.0 : 2.0;
  op.bytes = double(in_) * double(out_) * element + double(rows_) * double(in_) * element + double(rows_ * out_) * 2;
  return op;
}

}  // namespace dgx::llm::cuda::detail
