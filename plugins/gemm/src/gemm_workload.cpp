#include "gemm_workload.hpp"

#include "dgx/llm/cuda/check.hpp"
#include "dgx/llm/cuda/kernels.hpp"
#include "dgx/llm/cuda/sdk_bridge.hpp"
#include "dgx/llm/kernels/metrics.hpp"
#include "dgx/llm/reference/gemm_check.hpp"
#include "dgx/llm/reference/matrix.hpp"

#include <cstring>

namespace dgx::plugins::gemm {

using namespace dgx::llm::cuda;
using namespace dgx::llm::kernels;
namespace reference = dgx::llm::reference;

namespace {

constexpr int kSampledRows = 16;  // 16 rows of A × 16 rows of B = 256 checked entries

/// Rows spread over [0, count): deterministic, including the first and the last.
std::vector<std::int64_t> sample_rows(std::int64_t count) {
  std::vector<std::int64_t> rows;
  rows.reserve(kSampledRows);
  for (int i = 0; i < kSampledRows; ++i) {
    rows.push_back(count == 1 ? 0 : (count - 1) * i / (kSampledRows - 1));
  }
  return rows;
}

}  // namespace

GemmWorkload::GemmWorkload(sdk::Host& host)
    : host_(host), cases_(read_sweep(host)), peak_bf16_(host.get_float("gemm.peak_bf16")),
      peak_fp8_(host.get_float("gemm.peak_fp8")), check_(host.get_bool("gemm.check")),
      fast_accum_(host.get_bool("gemm.fp8_fast_accum")), candidates_(static_cast<int>(host.get_int("gemm.candidates"))),
      seed_(static_cast<std::uint64_t>(host.get_int("gemm.seed"))) {
  if (candidates_ < 1 || candidates_ > 64) {
    throw sdk::InvalidArgument("gemm.candidates must be in 1..64");
  }
  if (peak_bf16_ < 0 || peak_fp8_ < 0) {
    throw sdk::InvalidArgument("gemm.peak_bf16 and gemm.peak_fp8 must be >= 0");
  }
}

GemmWorkload::~GemmWorkload() {
  if (stream_) {
    cudaStreamSynchronize(stream_->get());
  }
}

std::vector<GemmCase> GemmWorkload::read_sweep(const sdk::Host& host) {
  return with_sdk_errors(
      [&] { return gemm_sweep(host.get_string_list("gemm.shapes"), host.get_string_list("gemm.precisions")); });
}

void GemmWorkload::setup() {
  with_sdk_errors([&] {
    device_ = current_device();
    stream_ = std::make_unique<Stream>();
    blas_ = std::make_unique<BlasLt>();
    l2_flush_ = DeviceBuffer(std::max<std::size_t>(2 * device_.l2_bytes, std::size_t{1} << 20));
    start_ = std::make_unique<Event>();
    stop_ = std::make_unique<Event>();
  });
  host_.add_field("device", device_.name);
}

sdk::Case GemmWorkload::begin_case(std::size_t index) {
  const GemmCase& c = cases_[index];
  with_sdk_errors([&] {
    const cudaStream_t s = stream_->get();
    gemm_.reset();
    a_ = DeviceBuffer(std::size_t(c.m * c.k) * 2);
    b_ = DeviceBuffer(std::size_t(c.n * c.k) * 2);
    d_ = DeviceBuffer(std::size_t(c.m * c.n) * 2);
    const std::uint64_t seed = seed_ * 1000003u + index * 2;  // fresh data per case
    fill_uniform(a_.as<bf16>(), c.m * c.k, seed, 1.0f, s);
    fill_uniform(b_.as<bf16>(), c.n * c.k, seed + 1, 1.0f, s);
    GemmDesc desc;
    desc.m = c.m, desc.n = c.n, desc.k = c.k;
    desc.b_transposed = true;
    const bool fp8 = c.precision == Precision::fp8;
    if (fp8) {
      desc.a_type = desc.b_type = DType::fp8_e4m3;
      desc.fast_accum = fast_accum_;
      a8_ = DeviceBuffer(std::size_t(c.m * c.k));
      b8_ = DeviceBuffer(std::size_t(c.n * c.k));
      scales_ = DeviceBuffer(2 * sizeof(Fp8Scale));
      auto* scale = scales_.as<Fp8Scale>();
      fp8_init_scales(scale, 2, 0, 1, s);
      fp8_amax(a_.as<bf16>(), c.m * c.k, scale, s);
      fp8_cast_transpose(a_.as<bf16>(), c.m, c.k, a8_.get(), nullptr, false, scale, true, s);
      fp8_amax(b_.as<bf16>(), c.n * c.k, scale + 1, s);
      fp8_cast_transpose(b_.as<bf16>(), c.n, c.k, b8_.get(), nullptr, false, scale + 1, true, s);
    } else {
      a8_.reset(), b8_.reset(), scales_.reset();
    }
    gemm_ = std::make_unique<Gemm>(*blas_, desc, candidates_);
    const auto* scale = scales_.as<Fp8Scale>();
    gemm_->tune(fp8 ? a8_.get() : a_.get(), fp8 ? b8_.get() : b_.get(), d_.get(), s,
                fp8 ? scale_inv_of(scale) : nullptr, fp8 ? scale_inv_of(scale + 1) : nullptr);
    stream_->synchronize();
  });
  sdk::Case out;
  out.label = c.label();
  out.set("gemm.m", c.m).set("gemm.n", c.n).set("gemm.k", c.k).set("precision", std::string(to_string(c.precision)));
  return out;
}

void GemmWorkload::run(const sdk::SampleRequest& request, sdk::SampleResult& result) {
  with_sdk_errors([&] {
    const cudaStream_t s = stream_->get();
    const bool fp8 = a8_ ? true : false;
    const auto* scale = scales_.as<Fp8Scale>();
    if (request.flush_cache) {
      DGX_CUDA_CHECK(cudaMemsetAsync(l2_flush_.get(), 0, l2_flush_.bytes(), s));
    }
    start_->record(s);
    for (std::uint32_t i = 0; i < request.iterations; ++i) {
      gemm_->run(fp8 ? a8_.get() : a_.get(), fp8 ? b8_.get() : b_.get(), d_.get(), s,
                 fp8 ? scale_inv_of(scale) : nullptr, fp8 ? scale_inv_of(scale + 1) : nullptr);
    }
    stop_->record(s);
    stop_->synchronize();
    result.timing = sdk::Timing::device_events;
    result.seconds = double(stop_->milliseconds_since(*start_)) * 1e-3;
    result.cache = request.flush_cache ? sdk::CacheState::cold : sdk::CacheState::hot;
  });
}

void GemmWorkload::end_case(std::size_t index, const sdk::Stats& stats) {
  const GemmCase& c = cases_[index];
  const double tflops = c.flops() / stats.median / 1e12;
  host_.add_metric("tflops", tflops, "TFLOP/s");
  const double configured = c.precision == Precision::fp8 ? peak_fp8_ : peak_bf16_;
  const auto peak = device_peak(configured, device_.name, c.precision);
  if (peak) {
    host_.add_metric("peak_pct", percent_of_peak(tflops, *peak), "%");
  }
  add_peak_fields(host_, peak, "gemm.peak_" + std::string(to_string(c.precision)));
  if (check_) {
    with_sdk_errors([&] { check(c); });
  }
}

void GemmWorkload::check(const GemmCase& c) {
  const bool fp8 = c.precision == Precision::fp8;
  const std::size_t element = fp8 ? 1 : 2;
  float scale_inv[2] = {1.0f, 1.0f};
  if (fp8) {
    for (int i = 0; i < 2; ++i) {
      DGX_CUDA_CHECK(
          cudaMemcpy(&scale_inv[i], scale_inv_of(scales_.as<Fp8Scale>() + i), sizeof(float), cudaMemcpyDeviceToHost));
    }
  }
  // Rows of an operand as the GEMM saw them: FP8 bytes times their dequantization scale, or BF16.
  const auto rows_of = [&](const DeviceBuffer& data, std::int64_t count, float scale) {
    std::vector<std::vector<double>> rows;
    std::vector<std::uint8_t> raw(std::size_t(c.k) * element);
    for (const std::int64_t r : sample_rows(count)) {
      DGX_CUDA_CHECK(cudaMemcpy(raw.data(), data.as<std::uint8_t>() + std::size_t(r * c.k) * element, raw.size(),
                                cudaMemcpyDeviceToHost));
      std::vector<double> row(std::size_t(c.k));
      for (std::size_t i = 0; i < row.size(); ++i) {
        if (fp8) {
          row[i] = reference::decode_fp8(raw[i], false) * scale;
        } else {
          std::uint16_t bits = 0;
          std::memcpy(&bits, &raw[2 * i], 2);
          row[i] = reference::decode_bf16(bits);
        }
      }
      rows.push_back(std::move(row));
    }
    return rows;
  };
  const auto a_rows = rows_of(fp8 ? a8_ : a_, c.m, scale_inv[0]);
  const auto b_rows = rows_of(fp8 ? b8_ : b_, c.n, scale_inv[1]);
  std::vector<std::vector<double>> d;
  std::vector<std::uint16_t> row(std::size_t(c.n));
  for (const std::int64_t r : sample_rows(c.m)) {
    DGX_CUDA_CHECK(cudaMemcpy(row.data(), d_.as<std::uint16_t>() + r * c.n, row.size() * 2, cudaMemcpyDeviceToHost));
    std::vector<double> values;
    for (const std::int64_t j : sample_rows(c.n)) {
      values.push_back(reference::decode_bf16(row[std::size_t(j)]));
    }
    d.push_back(std::move(values));
  }
  // BF16 output rounding (2^-8 relative) plus FP32 accumulation; FP8 fast accumulation is coarser.
  const auto result = reference::check_gemm_samples(a_rows, b_rows, d, 1.0 / 256, fp8 ? 1.0 / 256 : 1.0 / 1024);
  host_.add_field("check", result.describe());
  if (!result.passed()) {
    throw sdk::CheckFailed("gemm " + c.label() + ": " + result.describe());
  }
}

void GemmWorkload::finalize() {
  host_.note(sdk::NotePlacement::after, "gemm",
             "cuBLASLt (" + software_versions() +
                 "): D[M,N] = A[M,K]·B[N,K]ᵀ, BF16 output, FP32 accumulation; the fastest of the heuristic's "
                 "candidates timed at setup. FP8: E4M3 inputs with per-tensor scales (current scaling)" +
                 (fast_accum_ ? ", fast accumulation" : "") +
                 ". Timing: device events around the host runner's iterations; peaks are dense (no sparsity).");
}

}  // namespace dgx::plugins::gemm
