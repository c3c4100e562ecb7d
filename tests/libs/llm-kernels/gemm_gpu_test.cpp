// cuBLASLt GEMMs in the layouts a linear layer needs (forward, dgrad, wgrad; BF16 and FP8; strided batches)
// against an FP64 reference.
#include "dgx/llm/cuda/blas.hpp"
#include "dgx/llm/cuda/fp8.hpp"
#include "gpu_support.hpp"

using namespace dgx::llm;
using namespace dgx::llm::cuda;
using namespace dgx::llm::kernels;
using namespace dgx::llm::testing;

namespace {

/// D[m, n] = op(A) · op(B) from row-major host data, with A [m, k] (or [k, m]) and B [k, n] (or [n, k]).
std::vector<double> reference_gemm(const std::vector<double>& a, bool a_t, const std::vector<double>& b, bool b_t,
                                   std::int64_t m, std::int64_t n, std::int64_t k) {
  std::vector<double> d(std::size_t(m * n), 0.0);
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (std::int64_t p = 0; p < k; ++p) {
        sum += a[std::size_t(a_t ? p * m + i : i * k + p)] * b[std::size_t(b_t ? j * k + p : p * n + j)];
      }
      d[std::size_t(i * n + j)] = sum;
    }
  }
  return d;
}

struct Fp8Copy {
  DeviceBuffer data, data_t, scale;
  std::vector<double> values, values_t;  ///< decoded (scaled back) on the host
};

/// Casts host BF16 data [rows, cols] to FP8 on the device (current scaling), both layouts, and decodes them.
Fp8Copy to_fp8(const std::vector<double>& host, std::int64_t rows, std::int64_t cols, bool e5m2) {
  Fp8Copy c;
  const DeviceBuffer source = upload_bf16(host);
  c.data = DeviceBuffer(std::size_t(rows * cols));
  c.data_t = DeviceBuffer(std::size_t(rows * cols));
  c.scale = DeviceBuffer(sizeof(Fp8Scale));
  auto* scale = c.scale.as<Fp8Scale>();
  fp8_init_scales(scale, 1, e5m2 ? 1u : 0u, 1, nullptr);
  fp8_amax(source.as<bf16>(), rows * cols, scale, nullptr);
  fp8_cast_transpose(source.as<bf16>(), rows, cols, c.data.get(), c.data_t.get(), e5m2, scale, true, nullptr);
  float scale_inv = 0;
  DGX_CUDA_CHECK(cudaMemcpy(&scale_inv, scale_inv_of(scale), sizeof scale_inv, cudaMemcpyDeviceToHost));
  c.values = download_fp8(c.data, std::size_t(rows * cols), e5m2, scale_inv);
  c.values_t = download_fp8(c.data_t, std::size_t(rows * cols), e5m2, scale_inv);
  return c;
}

}  // namespace

TEST_CASE("BF16 GEMMs of a linear layer: forward x·Wᵀ, dgrad dy·W, wgrad dW += dyᵀ·x into FP32") {
  if (!have_gpu()) {
    return;
  }
  std::mt19937_64 rng(1);
  const std::int64_t rows = 96, in = 64, out = 80;
  const auto x = random_bf16(std::size_t(rows * in), 1.0, rng), w = random_bf16(std::size_t(out * in), 1.0, rng);
  const auto dy = random_bf16(std::size_t(rows * out), 1.0, rng);
  const DeviceBuffer dx_ = upload_bf16(x), dw_ = upload_bf16(w), ddy = upload_bf16(dy);
  BlasLt blas;
  Stream stream;

  GemmDesc forward{.m = rows, .n = out, .k = in};
  DeviceBuffer y(std::size_t(rows * out) * 2);
  Gemm(blas, forward).run(dx_.get(), dw_.get(), y.get(), stream.get());
  check_close("forward", download_bf16(y, std::size_t(rows * out)), reference_gemm(x, false, w, true, rows, out, in),
              kBf16Tolerance);

  GemmDesc dgrad{.m = rows, .n = in, .k = out, .b_transposed = false};
  DeviceBuffer dx(std::size_t(rows * in) * 2);
  Gemm(blas, dgrad).run(ddy.get(), dw_.get(), dx.get(), stream.get());
  check_close("dgrad", download_bf16(dx, std::size_t(rows * in)), reference_gemm(dy, false, w, false, rows, in, out),
              kBf16Tolerance);

  GemmDesc wgrad{.m = out,
                 .n = in,
                 .k = rows,
                 .d_type = DType::fp32,
                 .a_transposed = true,
                 .b_transposed = false,
                 .accumulate = true};
  const auto initial = random_bf16(std::size_t(out * in), 1.0, rng);
  DeviceBuffer dw = upload_f32(initial);
  Gemm gemm(blas, wgrad, 4);
  gemm.tune(ddy.get(), dx_.get(), dw.get(), stream.get());  // tuning accumulates too: start again
  dw = upload_f32(initial);
  gemm.run(ddy.get(), dx_.get(), dw.get(), stream.get());
  std::vector<double> expected = reference_gemm(dy, true, x, false, out, in, rows);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    expected[i] += initial[i];
  }
  check_close("wgrad (accumulate)", download_f32(dw, std::size_t(out * in)), expected, 1e-5);
}

TEST_CASE("a strided batch runs one GEMM per expert") {
  if (!have_gpu()) {
    return;
  }
  std::mt19937_64 rng(2);
  const std::int64_t groups = 3, rows = 32, in = 48, out = 64;
  const auto x = random_bf16(std::size_t(groups * rows * in), 1.0, rng);
  const auto w = random_bf16(std::size_t(groups * out * in), 1.0, rng);
  const DeviceBuffer dx = upload_bf16(x), dw = upload_bf16(w);
  DeviceBuffer y(std::size_t(groups * rows * out) * 2);
  BlasLt blas;
  GemmDesc desc{.m = rows, .n = out, .k = in};
  desc.batch = groups, desc.stride_a = rows * in, desc.stride_b = out * in, desc.stride_d = rows * out;
  Gemm(blas, desc).run(dx.get(), dw.get(), y.get(), nullptr);
  const std::vector<double> got = download_bf16(y, std::size_t(groups * rows * out));
  for (std::int64_t g = 0; g < groups; ++g) {
    const std::vector<double> xg(x.begin() + g * rows * in, x.begin() + (g + 1) * rows * in);
    const std::vector<double> wg(w.begin() + g * out * in, w.begin() + (g + 1) * out * in);
    const std::vector<double> yg(got.begin() + g * rows * out, got.begin() + (g + 1) * rows * out);
    check_close("expert", yg, reference_gemm(xg, false, wg, true, rows, out, in), kBf16Tolerance);
  }
}

TEST_CASE("FP8 GEMMs in Hopper's TN layout: E4M3 forward, E5M2 x E4M3 dgrad and wgrad from transposed copies") {
  if (!have_gpu()) {
    return;
  }
  std::mt19937_64 rng(3);
  const std::int64_t rows = 128, in = 64, out = 96;
  const auto x = random_bf16(std::size_t(rows * in), 1.0, rng), w = random_bf16(std::size_t(out * in), 1.0, rng);
  const auto dy = random_bf16(std::size_t(rows * out), 1.0, rng);
  const Fp8Copy x8 = to_fp8(x, rows, in, false), w8 = to_fp8(w, out, in, false), dy8 = to_fp8(dy, rows, out, true);
  const float* sx = scale_inv_of(x8.scale.as<Fp8Scale>());
  const float* sw = scale_inv_of(w8.scale.as<Fp8Scale>());
  const float* sg = scale_inv_of(dy8.scale.as<Fp8Scale>());
  BlasLt blas;

  GemmDesc forward{.m = rows, .n = out, .k = in, .a_type = DType::fp8_e4m3, .b_type = DType::fp8_e4m3};
  forward.fast_accum = true;
  DeviceBuffer y(std::size_t(rows * out) * 2);
  Gemm(blas, forward).run(x8.data.get(), w8.data.get(), y.get(), nullptr, sx, sw);
  const auto got = download_bf16(y, std::size_t(rows * out));
  check_close("fp8 forward (vs quantized)", got, reference_gemm(x8.values, false, w8.values, true, rows, out, in),
              kBf16Tolerance);
  check_close("fp8 forward (vs BF16 inputs)", got, reference_gemm(x, false, w, true, rows, out, in), kFp8GemmTolerance);

  GemmDesc dgrad{.m = rows, .n = in, .k = out, .a_type = DType::fp8_e5m2, .b_type = DType::fp8_e4m3};
  DeviceBuffer dx(std::size_t(rows * in) * 2);
  Gemm(blas, dgrad).run(dy8.data.get(), w8.data_t.get(), dx.get(), nullptr, sg, sw);
  check_close("fp8 dgrad (vs quantized)", download_bf16(dx, std::size_t(rows * in)),
              reference_gemm(dy8.values, false, w8.values, false, rows, in, out), kBf16Tolerance);

  GemmDesc wgrad{
      .m = out, .n = in, .k = rows, .a_type = DType::fp8_e5m2, .b_type = DType::fp8_e4m3, .d_type = DType::fp32};
  DeviceBuffer dw(std::size_t(out * in) * 4);
  Gemm(blas, wgrad).run(dy8.data_t.get(), x8.data_t.get(), dw.get(), nullptr, sg, sx);
  check_close("fp8 wgrad (vs quantized)", download_f32(dw, std::size_t(out * in)),
              reference_gemm(dy8.values, true, x8.values, false, out, in, rows), kFp8AccumulationTolerance);
}

TEST_CASE("FP8 GEMMs outside the TN layout and E5M2 x E5M2 are refused with a reason") {
  if (!have_gpu()) {
    return;
  }
  BlasLt blas;
  GemmDesc bad{.m = 64, .n = 64, .k = 64, .a_type = DType::fp8_e4m3, .b_type = DType::fp8_e4m3, .b_transposed = false};
  try {
    Gemm gemm(blas, bad);
    FAIL("expected an exception");
  } catch (const Error& e) {
    CHECK(e.kind() == Error::Kind::unsupported);
    CHECK(std::string(e.what()).find("K-contiguous") != std::string::npos);
  }
  GemmDesc both{.m = 64, .n = 64, .k = 64, .a_type = DType::fp8_e5m2, .b_type = DType::fp8_e5m2};
  CHECK_THROWS_AS(Gemm(blas, both), Error);
}
