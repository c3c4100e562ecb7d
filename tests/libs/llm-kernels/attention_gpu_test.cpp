// cuDNN flash attention (our backend graphs) against the reference: causal grouped-query and full multi-head,
// forward and backward, with Q, K and V inside one fused QKV row as the layer stores them.
#include "dgx/llm/cuda/attention.hpp"
#include "dgx/llm/cuda/kernels.hpp"
#include "dgx/llm/reference/ops.hpp"
#include "gpu_support.hpp"

#include <cmath>

using namespace dgx::llm;
using namespace dgx::llm::cuda;
using namespace dgx::llm::kernels;
using namespace dgx::llm::testing;
namespace ref = dgx::llm::reference;

namespace {

void check_attention(std::int64_t batch, std::int64_t seq, std::int64_t hq, std::int64_t hkv, std::int64_t d,
                     bool causal) {
  std::mt19937_64 rng(20);
  const std::int64_t width = (hq + 2 * hkv) * d, tokens = batch * seq;
  const auto qkv = random_bf16(std::size_t(tokens * width), 1.0, rng);
  const auto dout = random_bf16(std::size_t(tokens * hq * d), 1.0, rng);
  const ref::AttentionShape shape{batch, seq, hq, hkv, d, causal};
  const ref::Matrix qkv_m = as_matrix(qkv, tokens, width);
  const ref::AttentionResult expected = ref::attention_forward(qkv_m, shape);
  const ref::Matrix dqkv_expected = ref::attention_backward(qkv_m, expected, as_matrix(dout, tokens, hq * d), shape);

  AttentionConfig config{.batch = batch,
                         .q_heads = hq,
                         .kv_heads = hkv,
                         .q_len = seq,
                         .kv_len = seq,
                         .head_dim = d,
                         .causal = causal,
                         .q_stride = width,
                         .kv_stride = width,
                         .o_stride = hq * d};
  Cudnn cudnn;
  FlashAttention attention(cudnn, config);
  const DeviceBuffer dqkv_in = upload_bf16(qkv), ddout = upload_bf16(dout);
  DeviceBuffer o(std::size_t(tokens * hq * d) * 2), stats(std::size_t(batch * hq * seq) * 4);
  DeviceBuffer dqkv(std::size_t(tokens * width) * 2);
  DGX_CUDA_CHECK(cudaMemset(dqkv.get(), 0, dqkv.bytes()));
  DeviceBuffer forward_ws(attention.forward_workspace_bytes()), backward_ws(attention.backward_workspace_bytes());
  const bf16* q = dqkv_in.as<bf16>();
  attention.forward(q, q + hq * d, q + (hq + hkv) * d, o.get(), stats.as<float>(), forward_ws.get(), nullptr);
  bf16* dq = dqkv.as<bf16>();
  attention.backward(q, q + hq * d, q + (hq + hkv) * d, o.get(), ddout.get(), stats.as<float>(), dq, dq + hq * d,
                     dq + (hq + hkv) * d, backward_ws.get(), nullptr);
  std::printf("%s\n", config.describe().c_str());
  check_close("attention O", download_bf16(o, std::size_t(tokens * hq * d)), expected.o.v, kBf16Tolerance);
  check_close("attention stats (lse)", download_f32(stats, std::size_t(batch * hq * seq)), expected.lse, 1e-3);
  check_close("attention dQ, dK, dV", download_bf16(dqkv, std::size_t(tokens * width)), dqkv_expected.v,
              kBf16Tolerance);
}

}  // namespace

TEST_CASE("causal grouped-query attention, forward and backward, matches the reference") {
  if (!have_gpu()) {
    return;
  }
  check_attention(2, 128, 4, 2, 64, true);
}

TEST_CASE("full multi-head attention with head_dim 128 matches the reference") {
  if (!have_gpu()) {
    return;
  }
  check_attention(1, 256, 2, 2, 128, false);
}

TEST_CASE("configurations cuDNN or dgxhost do not support fail with a message naming the configuration") {
  if (!have_gpu()) {
    return;
  }
  Cudnn cudnn;
  AttentionConfig fp8{
      .batch = 1, .q_heads = 8, .kv_heads = 8, .q_len = 128, .kv_len = 128, .head_dim = 64, .fp8 = true};
  try {
    FlashAttention attention(cudnn, fp8);
    FAIL("expected FP8 attention to be refused");
  } catch (const Error& e) {
    CHECK(e.kind() == Error::Kind::unsupported);
    CHECK(std::string(e.what()).find("SDPA fp8 b=1 hq=8 hkv=8 s_q=128 s_kv=128 d=64") != std::string::npos);
  }
  AttentionConfig odd{.batch = 1, .q_heads = 6, .kv_heads = 4, .q_len = 128, .kv_len = 128, .head_dim = 64};
  CHECK_THROWS_AS(FlashAttention(cudnn, odd), Error);
}
