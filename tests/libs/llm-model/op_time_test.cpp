#include "dgx/llm/op_time.hpp"

#include "catalog_fixtures.hpp"

#include <doctest/doctest.h>

using namespace dgx::llm;
using dgx::llm::testing::catalog_system;

namespace {
Op timed_gemm(std::int64_t m, std::int64_t n, std::int64_t k, Precision precision = Precision::bf16) {
  return Op{.name = "fc1", .pass = Pass::forward, .precision = precision, .shape = GemmShape{.m = m, .n = n, .k = k}};
}
double tflops(const OpTimeProvider& provider, const Op& op) {
  const auto& g = std::get<GemmShape>(op.shape);
  return 2.0 * g.m * g.n * g.k / provider.seconds(op) / 1e12;
}
}  // namespace

TEST_CASE("a large GEMM runs at the ceiling times the sustained fraction, below the measured kernel maximum") {
  const SystemProfile h100 = catalog_system("h100-sxm");
  const RooflineProvider roofline(h100);
  const Efficiency& e = h100.efficiency;
  // 66 × 32 tiles of 128 × 256: 16 full waves on 132 SMs, no partly empty last wave.
  CHECK(tflops(roofline, timed_gemm(128 * 66, 256 * 32, 8192)) ==
        doctest::Approx(h100.peak_bf16_tflops * e.gemm_ceiling_bf16 * e.sustained_compute).epsilon(0.01));
  // Section D: no GEMM beats the measured maxima, 794.5 (BF16) and 1402.6 (FP8) TFLOP/s.
  CHECK(tflops(roofline, timed_gemm(16384, 16384, 16384)) <= 794.5);
  CHECK(tflops(roofline, timed_gemm(16384, 16384, 16384, Precision::fp8)) <= 1402.6);
}

TEST_CASE("GEMM efficiency rises with size toward the ceiling") {
  const RooflineProvider roofline(catalog_system("h100-sxm"));
  double previous = 0;
  for (const std::int64_t size : {256, 512, 1024, 2048, 4096, 8192}) {
    const double rate = tflops(roofline, timed_gemm(size, size, size));
    CHECK(rate > previous);
    previous = rate;
  }
}

TEST_CASE("an FP8 GEMM is faster than the same BF16 GEMM, a skinny one is memory bound") {
  const RooflineProvider roofline(catalog_system("h100-sxm"));
  CHECK(roofline.seconds(timed_gemm(8192, 8192, 8192, Precision::fp8)) <
        roofline.seconds(timed_gemm(8192, 8192, 8192)));
  const Op skinny = timed_gemm(8, 8192, 8192);
  const double bytes = 2.0 * (8.0 * 8192 + 8192.0 * 8192 + 8.0 * 8192);
  CHECK(roofline.seconds(skinny) > bytes / (3.35e12));
}

TEST_CASE("attention backward costs 2.5x the forward FLOPs at its own efficiency") {
  const SystemProfile h100 = catalog_system("h100-sxm");
  const RooflineProvider roofline(h100);
  const AttentionShape shape{.batch = 1,
                             .heads = 32,
                             .kv_heads = 8,
                             .q_len = 8192,
                             .kv_len = 8192,
                             .head_dim = 128,
                             .mask_fraction = 0.5,
                             .steps = 1};
  const double forward = roofline.seconds(Op{.name = "attention", .pass = Pass::forward, .shape = shape});
  const double backward = roofline.seconds(Op{.name = "attention", .pass = Pass::backward, .shape = shape});
  const double overhead = h100.efficiency.kernel_overhead_us * 1e-6;
  CHECK((backward - overhead) / (forward - overhead) ==
        doctest::Approx(2.5 * h100.efficiency.attention_fwd / h100.efficiency.attention_bwd));
}

TEST_CASE("memory-bound ops take bytes over the sustained HBM bandwidth") {
  const SystemProfile h100 = catalog_system("h100-sxm");
  const RooflineProvider roofline(h100);
  const Op op{.name = "swiglu", .pass = Pass::forward, .shape = MemoryShape{.bytes = 1e9, .kernels = 2}};
  CHECK(roofline.seconds(op) ==
        doctest::Approx(1e9 / (3.35e12 * h100.efficiency.memory_bw) + 2 * h100.efficiency.kernel_overhead_us * 1e-6));
}

TEST_CASE("measured overrides replace exactly the measured op and fall back for the others") {
  const RooflineProvider roofline(catalog_system("h100-sxm"));
  MeasuredOverrides measured(roofline);
  const Op fc1 = timed_gemm(8192, 28672, 8192);
  const Op other = timed_gemm(8192, 28672, 8192, Precision::fp8);
  measured.set(fc1, 0.123);
  CHECK(measured.size() == 1);
  CHECK(measured.seconds(fc1) == 0.123);
  CHECK(measured.source(fc1) == "measured");
  CHECK(measured.seconds(other) == roofline.seconds(other));
  CHECK(measured.source(other) == "roofline");
  // Keys are exact: name, pass, precision and shape.
  CHECK(fc1.key() == "fc1.forward bf16 m=8192 n=28672 k=8192");
  measured.set("fc1.forward fp8 m=8192 n=28672 k=8192", 0.05);
  CHECK(measured.seconds(other) == 0.05);
}

TEST_CASE("with split-K a small-M decode GEMM streams its weights at the memory roofline") {
  const SystemProfile h100 = catalog_system("h100-sxm");
  const RooflineProvider tiles(h100);
  const RooflineProvider split(h100, RooflineProvider::GemmFill::split_k);
  // The QKV GEMM of Llama 3.1 70B at TP2 for 128 decoding sequences: 20 output tiles on 132 SMs.
  const Op decode = timed_gemm(128, 5120, 8192, Precision::fp8);
  const double weights = 5120.0 * 8192;
  const double bytes = weights + 128.0 * 8192 + 128.0 * 5120 * 2;
  const double memory = bytes / (h100.efficiency.memory_bw * h100.hbm_bytes_per_s()) + 4e-6;
  CHECK(split.seconds(decode) == doctest::Approx(memory));
  CHECK(tiles.seconds(decode) > 2 * split.seconds(decode));
  // Large GEMMs fill the GPU either way: the option changes nothing there.
  CHECK(split.seconds(timed_gemm(8192, 8192, 8192)) == tiles.seconds(timed_gemm(8192, 8192, 8192)));
}

TEST_CASE("flash attention runs slower per FLOP at a narrow head dimension, faster at a wide one") {
  const RooflineProvider roofline(catalog_system("h100-sxm"));
  const auto rate = [&](std::int64_t head_dim) {
    const AttentionShape shape{
        .batch = 1, .heads = 64, .kv_heads = 8, .q_len = 8192, .kv_len = 8192, .head_dim = head_dim, .steps = 1};
    return static_cast<double>(head_dim) / roofline.seconds(Op{.name = "attention", .shape = shape});
  };
  // FlashAttention-3's H100 forward: about 0.77 of the head-dim-128 rate at 64 and 1.15 at 256.
  CHECK(rate(64) / rate(128) == doctest::Approx(0.77).epsilon(0.02));
  CHECK(rate(256) / rate(128) == doctest::Approx(1.17).epsilon(0.02));
}

TEST_CASE("the routed experts' grouped GEMMs run at the release's grouped-GEMM fraction, other GEMMs do not") {
  SystemProfile h100 = catalog_system("h100-sxm");
  h100.efficiency.grouped_gemm = 0.5;
  const RooflineProvider roofline(h100);
  Op expert = timed_gemm(8192, 8192, 8192);
  expert.name = "expert_fc1";
  expert.part = OpPart::moe;
  Op dense = timed_gemm(8192, 8192, 8192);
  CHECK(roofline.seconds(expert) == doctest::Approx(2 * roofline.seconds(dense)));
  Op router = expert;
  router.name = "router";
  CHECK(roofline.seconds(router) == doctest::Approx(roofline.seconds(dense)));
}

TEST_CASE("a GEMM whose tiles leave the last wave partly empty pays for the whole wave") {
  const SystemProfile gb200 = catalog_system("gb200-nvl72");
  const RooflineProvider roofline(gb200);
  // 1024 tokens × 10240 outputs: 8 × 40 = 320 tiles of 128 × 256 on 148 SMs run as 3 waves (72 %); 4440 tiles
  // (30 waves exactly) run full.
  const double partial = tflops(roofline, timed_gemm(1024, 10240, 8192, Precision::fp8));
  const double full = tflops(roofline, timed_gemm(128 * 148, 256 * 30, 8192, Precision::fp8));
  CHECK(partial / full == doctest::Approx(320.0 / (3 * 148)).epsilon(0.03));
}

TEST_CASE("a context-parallel ring pays its per-step exchange and merge kernels whatever the block size") {
  const SystemProfile h100 = catalog_system("h100-sxm");
  const RooflineProvider roofline(h100);
  const auto attention = [](std::int64_t q_len, int steps) {
    return Op{.name = "attention",
              .pass = Pass::forward,
              .shape = AttentionShape{.batch = 1,
                                      .heads = 64,
                                      .kv_heads = 8,
                                      .q_len = q_len,
                                      .kv_len = q_len * steps,
                                      .head_dim = 128,
                                      .mask_fraction = 0.5,
                                      .steps = steps}};
  };
  const auto shape = [](const Op& op) { return std::get<AttentionShape>(op.shape); };
  CHECK(shape(attention(1024, 1)).kernels() == 1);
  CHECK(shape(attention(1024, 8)).kernels() == 8 * (1 + kCpRingStepExtraKernels));
  // The same FLOPs in one kernel or in a ring of 8 steps: the ring costs its kernels' fixed time on top.
  const double kernel_s = h100.efficiency.kernel_overhead_us * 1e-6;
  const double one = roofline.seconds(attention(1024, 1));
  Op ring = attention(1024, 8);
  std::get<AttentionShape>(ring.shape).kv_len = 1024;  // the FLOPs of the single kernel, split over the ring
  CHECK(roofline.seconds(ring) - one == doctest::Approx((8 * (1 + kCpRingStepExtraKernels) - 1) * kernel_s));
  // At MLPerf LoRA's 1k tokens per rank the fixed part is a large share of the attention; at 32k it vanishes.
  const double small = roofline.seconds(attention(1024, 8));
  const double large = roofline.seconds(attention(32768, 8));
  CHECK(8 * (1 + kCpRingStepExtraKernels) * kernel_s / small > 0.2);
  CHECK(8 * (1 + kCpRingStepExtraKernels) * kernel_s / large < 0.01);
}

TEST_CASE(
    "a chunked scan runs at the attention fraction of the BF16 peak, or at the memory roofline when it reads more") {
  const SystemProfile h100 = catalog_system("h100-sxm");
  const RooflineProvider roofline(h100);
  const Efficiency& e = h100.efficiency;
  const double overhead = 5 * e.kernel_overhead_us * 1e-6;
  const Op compute{.name = "ssd_scan", .shape = ScanShape{.flops = 1e12, .bytes = 1e6, .tiles = 10000, .kernels = 5}};
  CHECK(roofline.seconds(compute) ==
        doctest::Approx(1e12 / (h100.peak_bf16_tflops * 1e12 * e.attention_fwd * e.sustained_compute) + overhead));
  Op backward = compute;
  backward.pass = Pass::backward;
  CHECK(roofline.seconds(backward) > roofline.seconds(compute));  // attention_bwd < attention_fwd
  const Op memory{.name = "ssd_scan", .shape = ScanShape{.flops = 1e6, .bytes = 1e10, .tiles = 10000, .kernels = 5}};
  CHECK(roofline.seconds(memory) == doctest::Approx(1e10 / (h100.hbm_bytes_per_s() * e.memory_bw) + overhead));
}
