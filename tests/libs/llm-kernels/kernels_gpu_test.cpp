// Our memory-bound kernels against the CPU reference on fresh random data.
#include "dgx/llm/cuda/fp8.hpp"
#include "dgx/llm/cuda/kernels.hpp"
#include "dgx/llm/reference/ops.hpp"
#include "gpu_support.hpp"

#include <cmath>

using namespace dgx::llm;
using namespace dgx::llm::cuda;
using namespace dgx::llm::kernels;
using namespace dgx::llm::testing;
namespace ref = dgx::llm::reference;

TEST_CASE("RMSNorm and LayerNorm forward and backward match the reference, γ/β gradients accumulate") {
  if (!have_gpu()) {
    return;
  }
  for (const Norm norm : {Norm::rmsnorm, Norm::layernorm}) {
    std::mt19937_64 rng(10);
    const std::int64_t rows = 300, cols = 1024;
    const auto x = random_bf16(std::size_t(rows * cols), 2.0, rng),
               dy = random_bf16(std::size_t(rows * cols), 1.0, rng);
    std::vector<double> gamma = random_bf16(std::size_t(cols), 1.0, rng),
                        beta = random_bf16(std::size_t(cols), 1.0, rng);
    const ref::Matrix xm = as_matrix(x, rows, cols), dym = as_matrix(dy, rows, cols);
    const ref::NormResult expected = ref::norm_forward(norm, xm, gamma, beta);
    const ref::NormGrads grads = ref::norm_backward(norm, xm, gamma, expected, dym);

    const DeviceBuffer dx_in = upload_bf16(x), ddy = upload_bf16(dy), dgamma = upload_bf16(gamma),
                       dbeta = upload_bf16(beta);
    DeviceBuffer y(std::size_t(rows * cols) * 2), mean(std::size_t(rows) * 4), rstd(std::size_t(rows) * 4);
    DeviceBuffer dx(std::size_t(rows * cols) * 2), workspace(norm_backward_workspace_bytes(cols));
    const std::vector<double> ones(std::size_t(cols), 1.0);  // the gradients accumulate onto what is there
    DeviceBuffer gamma_grad = upload_f32(ones), beta_grad = upload_f32(ones);
    norm_forward(norm, dx_in.as<bf16>(), dgamma.as<bf16>(), dbeta.as<bf16>(), y.as<bf16>(), mean.as<float>(),
                 rstd.as<float>(), rows, cols, nullptr);
    norm_backward(norm, dx_in.as<bf16>(), dgamma.as<bf16>(), mean.as<float>(), rstd.as<float>(), ddy.as<bf16>(),
                  dx.as<bf16>(), gamma_grad.as<float>(), beta_grad.as<float>(), workspace.get(), rows, cols, nullptr);
    check_close("norm y", download_bf16(y, std::size_t(rows * cols)), expected.y.v, kBf16Tolerance);
    check_close("norm rstd", download_f32(rstd, std::size_t(rows)), expected.rstd, 1e-5);
    check_close("norm dx", download_bf16(dx, std::size_t(rows * cols)), grads.dx.v, kBf16Tolerance);
    std::vector<double> dgamma_expected = grads.dgamma;
    for (double& v : dgamma_expected) {
      v += 1.0;
    }
    check_close("norm dgamma", download_f32(gamma_grad, std::size_t(cols)), dgamma_expected, 1e-4);
    if (norm == Norm::layernorm) {
      std::vector<double> dbeta_expected = grads.dbeta;
      for (double& v : dbeta_expected) {
        v += 1.0;
      }
      check_close("norm dbeta", download_f32(beta_grad, std::size_t(cols)), dbeta_expected, 1e-4);
    }
  }
}

TEST_CASE("SwiGLU, GELU and squared ReLU forward and backward match the reference (vector and scalar paths)") {
  if (!have_gpu()) {
    return;
  }
  for (const std::int64_t f : {256, 37}) {
    for (const Activation act : {Activation::swiglu, Activation::gelu, Activation::squared_relu}) {
      std::mt19937_64 rng(11);
      const std::int64_t rows = 50, in_cols = act == Activation::swiglu ? 2 * f : f;
      const auto in = random_bf16(std::size_t(rows * in_cols), 3.0, rng),
                 dout = random_bf16(std::size_t(rows * f), 1.0, rng);
      const ref::Matrix inm = as_matrix(in, rows, in_cols);
      const DeviceBuffer din_ = upload_bf16(in), ddout = upload_bf16(dout);
      DeviceBuffer out(std::size_t(rows * f) * 2), din(std::size_t(rows * in_cols) * 2);
      activation_forward(act, din_.as<bf16>(), out.as<bf16>(), rows, f, nullptr);
      activation_backward(act, din_.as<bf16>(), ddout.as<bf16>(), din.as<bf16>(), rows, f, nullptr);
      check_close("activation forward", download_bf16(out, std::size_t(rows * f)), ref::activation_forward(act, inm).v,
                  kBf16Tolerance);
      check_close("activation backward", download_bf16(din, std::size_t(rows * in_cols)),
                  ref::activation_backward(act, inm, as_matrix(dout, rows, f)).v, kBf16Tolerance);
    }
  }
}

TEST_CASE("rotary embedding rotates q and k heads in place and its inverse is the backward") {
  if (!have_gpu()) {
    return;
  }
  std::mt19937_64 rng(12);
  const std::int64_t seq = 64, batch = 2, hq = 4, hkv = 2, d = 64, width = (hq + 2 * hkv) * d;
  const auto qkv = random_bf16(std::size_t(batch * seq * width), 1.0, rng);
  ref::Matrix expected = as_matrix(qkv, batch * seq, width);
  ref::rope(expected, seq, hq, hkv, d, 10000.0, false);
  DeviceBuffer rows = upload_bf16(qkv), table(std::size_t(seq * d / 2) * sizeof(float2));
  rope_table(table.as<float2>(), seq, d, 10000.0, nullptr);
  rope_apply(rows.as<bf16>(), batch * seq, width, hq + hkv, d, seq, table.as<float2>(), false, nullptr);
  check_close("rope forward", download_bf16(rows, qkv.size()), expected.v, kBf16Tolerance);
  rope_apply(rows.as<bf16>(), batch * seq, width, hq + hkv, d, seq, table.as<float2>(), true, nullptr);
  check_close("rope inverse", download_bf16(rows, qkv.size()), qkv, kBf16Tolerance);
}

TEST_CASE("residual add, MoE row gather and sum, embedding and cross-entropy match the reference") {
  if (!have_gpu()) {
    return;
  }
  std::mt19937_64 rng(13);
  const std::int64_t tokens = 40, cols = 64, copies = 2;
  const auto a = random_bf16(std::size_t(tokens * cols), 1.0, rng),
             b = random_bf16(std::size_t(tokens * cols), 1.0, rng);
  DeviceBuffer da = upload_bf16(a), db = upload_bf16(b), sum(std::size_t(tokens * cols) * 2);
  add(da.as<bf16>(), db.as<bf16>(), sum.as<bf16>(), tokens * cols - 3, nullptr);  // a tail the vectors miss
  std::vector<double> expected = a;
  for (std::size_t i = 0; i + 3 < a.size(); ++i) {
    expected[i] += b[i];
  }
  auto got = download_bf16(sum, a.size());
  got.resize(a.size() - 3), expected.resize(a.size() - 3);
  check_close("add", got, expected, kBf16Tolerance);

  DeviceBuffer routed(std::size_t(copies * tokens * cols) * 2), back(std::size_t(tokens * cols) * 2);
  gather_rows(da.as<bf16>(), tokens, cols, routed.as<bf16>(), copies * tokens, 1.0f, nullptr);
  sum_rows(routed.as<bf16>(), tokens, cols, copies, 0.5f, back.as<bf16>(), nullptr);
  check_close("gather then mean", download_bf16(back, a.size()), a, 1e-6);

  const std::int64_t vocab = 1000, hidden = 64;
  const auto table = random_bf16(std::size_t(vocab * hidden), 1.0, rng);
  std::vector<std::int64_t> ids;
  for (int t = 0; t < tokens; ++t) {
    ids.push_back(std::int64_t(rng() % vocab));
  }
  std::vector<std::int32_t> ids32(ids.begin(), ids.end());
  DeviceBuffer dids(ids32.size() * 4);
  DGX_CUDA_CHECK(cudaMemcpy(dids.get(), ids32.data(), dids.bytes(), cudaMemcpyHostToDevice));
  DeviceBuffer dtable = upload_bf16(table), out(std::size_t(tokens * hidden) * 2);
  embedding_forward(dids.as<std::int32_t>(), tokens, dtable.as<bf16>(), 0, vocab, hidden, out.as<bf16>(), nullptr);
  const ref::Matrix tm = as_matrix(table, vocab, hidden);
  check_close("embedding forward", download_bf16(out, std::size_t(tokens * hidden)), ref::embedding_forward(tm, ids).v,
              1e-6);
  const auto dout = random_bf16(std::size_t(tokens * hidden), 1.0, rng);
  DeviceBuffer ddout = upload_bf16(dout), dgrad = upload_f32(std::vector<double>(table.size(), 0.0));
  embedding_backward(dids.as<std::int32_t>(), tokens, ddout.as<bf16>(), 0, vocab, hidden, dgrad.as<float>(), nullptr);
  check_close("embedding backward", download_f32(dgrad, table.size()),
              ref::embedding_backward(vocab, as_matrix(dout, tokens, hidden), ids).v, 1e-6);

  const auto logits = random_bf16(std::size_t(tokens * vocab), 4.0, rng);
  DeviceBuffer dlogits = upload_bf16(logits), loss(std::size_t(tokens) * 4), lse(std::size_t(tokens) * 4);
  DeviceBuffer grad(std::size_t(tokens * vocab) * 2);
  cross_entropy_forward(dlogits.as<bf16>(), dids.as<std::int32_t>(), tokens, vocab, loss.as<float>(), lse.as<float>(),
                        nullptr);
  cross_entropy_backward(dlogits.as<bf16>(), dids.as<std::int32_t>(), lse.as<float>(), tokens, vocab,
                         1.0f / float(tokens), grad.as<bf16>(), nullptr);
  const ref::Matrix lm = as_matrix(logits, tokens, vocab);
  const ref::LossResult expected_loss = ref::cross_entropy_forward(lm, ids);
  double mean_loss = 0;
  for (const double l : download_f32(loss, std::size_t(tokens))) {
    mean_loss += l / double(tokens);
  }
  CHECK(mean_loss == doctest::Approx(expected_loss.loss).epsilon(1e-4));
  check_close("cross-entropy lse", download_f32(lse, std::size_t(tokens)), expected_loss.lse, 1e-5);
  check_close("cross-entropy backward", download_bf16(grad, std::size_t(tokens * vocab)),
              ref::cross_entropy_backward(lm, ids, expected_loss).v, kBf16Tolerance);
}

TEST_CASE("FP8 cast + transpose: both layouts hold the same values, amax is recorded, delayed scales update") {
  if (!have_gpu()) {
    return;
  }
  std::mt19937_64 rng(14);
  const std::int64_t rows = 100, cols = 72;  // not multiples of the 64×64 tile
  auto x = random_bf16(std::size_t(rows * cols), 3.0, rng);
  x[17] = -5.0;  // the amax
  DeviceBuffer dx = upload_bf16(x), out(std::size_t(rows * cols)), out_t(std::size_t(rows * cols));
  DeviceBuffer scale(sizeof(Fp8Scale));
  auto* s = scale.as<Fp8Scale>();
  fp8_init_scales(s, 1, 0, 4, nullptr);
  fp8_cast_transpose(dx.as<bf16>(), rows, cols, out.get(), out_t.get(), false, s, false, nullptr);  // delayed: scale 1
  const auto values = download_fp8(out, x.size(), false, 1.0), values_t = download_fp8(out_t, x.size(), false, 1.0);
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < cols; ++c) {
      CHECK(values[std::size_t(r * cols + c)] == ref::round_fp8(x[std::size_t(r * cols + c)], false));
      CHECK(values_t[std::size_t(c * rows + r)] == values[std::size_t(r * cols + c)]);
    }
  }
  Fp8Scale host{};
  DGX_CUDA_CHECK(cudaMemcpy(&host, s, sizeof host, cudaMemcpyDeviceToHost));
  CHECK(host.amax == 5.0f);
  fp8_update_scales(s, 1, nullptr);
  DGX_CUDA_CHECK(cudaMemcpy(&host, s, sizeof host, cudaMemcpyDeviceToHost));
  CHECK(host.scale == doctest::Approx(448.0 / 5.0));
  CHECK(host.scale_inv == doctest::Approx(5.0 / 448.0));
  CHECK(host.amax == 0.0f);
  CHECK(host.position == 1);
  // Current scaling takes this tensor's amax.
  fp8_amax(dx.as<bf16>(), rows * cols, s, nullptr);
  fp8_cast_transpose(dx.as<bf16>(), rows, cols, out.get(), nullptr, true, s, true, nullptr);
  DGX_CUDA_CHECK(cudaMemcpy(&host, s, sizeof host, cudaMemcpyDeviceToHost));
  CHECK(host.scale == doctest::Approx(448.0 / 5.0));
  check_close("fp8 current scaling", download_fp8(out, x.size(), true, host.scale_inv), x, kFp8GemmTolerance);
}
