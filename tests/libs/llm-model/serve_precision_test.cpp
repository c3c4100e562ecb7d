#include "dgx/llm/serve_precision.hpp"

#include "dgx/llm/op_time.hpp"
#include "dgx/llm/serve_config.hpp"
#include "dgx/llm/serve_memory.hpp"

#include "catalog_fixtures.hpp"
#include "text_checks.hpp"

#include <doctest/doctest.h>

using namespace dgx::llm;
using namespace dgx::llm::testing;
using dgx::testing::has;

TEST_CASE("MXFP4 runs as W4A16 on Hopper and W4A8 on Blackwell, FP8 block-scaled at the FP8 peak") {
  const SystemProfile h100 = catalog_system("h100-sxm");
  const SystemProfile b200 = catalog_system("b200");
  CHECK(gemm_precision(Precision::mxfp4, h100) == Precision::bf16);
  CHECK(gemm_precision(Precision::mxfp4, b200) == Precision::mxfp8);
  CHECK(gemm_precision(Precision::fp8_block, h100) == Precision::fp8);
  CHECK(gemm_precision(Precision::nvfp4, b200) == Precision::nvfp4);
  const ModelConfig llama = catalog_model("llama3.1-8b");
  const GemmFormat w4a16 = serve_gemm_format(llama, h100, Precision::mxfp4, false);
  CHECK(w4a16.compute == Precision::bf16);
  CHECK(w4a16.weights() == doctest::Approx(4.25 / 8));
  CHECK(w4a16.input_bytes() == 2);
  const GemmFormat w4a8 = serve_gemm_format(llama, b200, Precision::mxfp4, false);
  CHECK(w4a8.compute == Precision::mxfp8);
  CHECK(w4a8.input_bytes() == doctest::Approx(1 + 1.0 / 32));
  // A format that runs as itself reads its own operand bytes: no mixed-input weights.
  CHECK(serve_gemm_format(llama, h100, Precision::fp8, false).weight_bytes == 0);
  CHECK(precision_assumption(llama, h100, Precision::fp8).empty());
}

TEST_CASE("gpt-oss served in its own MXFP4 quantizes its experts alone, attention and router stay BF16") {
  const ModelConfig gpt_oss = catalog_model("gpt-oss-120b");
  const SystemProfile h100 = catalog_system("h100-sxm");
  CHECK(checkpoint_precision(gpt_oss) == Precision::mxfp4);
  CHECK(serve_gemm_format(gpt_oss, h100, Precision::mxfp4, false).compute == Precision::bf16);
  CHECK(serve_gemm_format(gpt_oss, h100, Precision::mxfp4, false).weights() == 2);
  CHECK(serve_gemm_format(gpt_oss, h100, Precision::mxfp4, true).weights() == doctest::Approx(4.25 / 8));
  CHECK(precision_assumption(gpt_oss, h100, Precision::mxfp4) ==
        "MXFP4 experts run as W4A16 on h100-sxm: no FP4 tensor cores, so the 4.25-bit weights are dequantized to BF16 "
        "in the GEMM and multiplied at the BF16 peak; attention, router and the other linear layers stay BF16, as the "
        "checkpoint ships them");
  // 117B parameters, of which the experts' 114B at 4.25 bits: about 61 GiB on one GPU, the rest BF16.
  const double weights = serve_weight_bytes(gpt_oss, ServeShape{.layout = {}, .precision = Precision::mxfp4});
  const double experts = 36.0 * 128 * 3 * 2880 * 2880;
  CHECK(weights > experts * 4.25 / 8);
  CHECK(weights < experts * 4.25 / 8 + 2 * (117e9 - experts) * 1.01);
  CHECK(weights < 0.3 * serve_weight_bytes(gpt_oss, ServeShape{.layout = {}, .precision = Precision::bf16}));
}

TEST_CASE("an INT4 checkpoint (Kimi K2.5) is served as W4A16 on every GPU, its experts at 4.5 bits") {
  ModelConfig kimi = catalog_model("kimi-k2");
  kimi.checkpoint = CheckpointFormat{.weights = WeightFormat::int4, .quantized = QuantizedPart::experts};
  CHECK(checkpoint_precision(kimi) == Precision::int4);
  for (const char* gpu : {"h100-sxm", "b200"}) {
    const SystemProfile system = catalog_system(gpu);
    CAPTURE(gpu);
    CHECK(gemm_precision(Precision::int4, system) == Precision::bf16);
    CHECK(serve_gemm_format(kimi, system, Precision::int4, true).weights() == doctest::Approx(4.5 / 8));
    CHECK(serve_gemm_format(kimi, system, Precision::int4, false).weights() == 2);  // attention, shared experts
    CHECK(system.gemm_ceiling(Precision::int4) == system.gemm_ceiling(Precision::bf16));
    CHECK(has(precision_assumption(kimi, system, Precision::int4), "INT4 experts (groups of 32, BF16 scales) run as "
                                                                   "W4A16 on " +
                                                                       std::string(gpu)));
  }
  CHECK(auto_kv_precision(Precision::int4) == Precision::bf16);
  // 1.03T parameters, nearly all in routed experts: at 4.5 bits about a quarter of the BF16 weights and more than a
  // quarter of their bytes at 4 bits alone.
  const double int4 = serve_weight_bytes(kimi, ServeShape{.layout = {}, .precision = Precision::int4});
  const double bf16 = serve_weight_bytes(kimi, ServeShape{.layout = {}, .precision = Precision::bf16});
  CHECK(int4 / bf16 > 4.5 / 16);
  CHECK(int4 / bf16 < 0.32);
}

TEST_CASE("the checkpoint formats take the kernels of the GEMM precision at whose peak they run") {
  SystemProfile h100 = catalog_system("h100-sxm");
  h100.efficiency.gemm_software = {0.9, 0.8, 1, 1};
  CHECK(h100.gemm_ceiling(Precision::fp8_block) == h100.gemm_ceiling(Precision::fp8));
  CHECK(h100.gemm_ceiling(Precision::int4) == h100.gemm_ceiling(Precision::bf16));
  CHECK(h100.gemm_ceiling(Precision::fp8) == doctest::Approx(h100.efficiency.gemm_ceiling_fp8 * 0.8));
}

TEST_CASE("a mixed-input GEMM streams its narrow weights: decode's GEMM time follows 4.25-bit weights") {
  const RooflineProvider roofline(catalog_system("h100-sxm"), RooflineProvider::GemmFill::split_k);
  const Op bf16{.name = "expert_fc1", .shape = GemmShape{.m = 8, .n = 8192, .k = 8192}};
  Op mxfp4 = bf16;
  std::get<GemmShape>(mxfp4.shape).weight_bytes = 4.25 / 8;
  const double overhead = catalog_system("h100-sxm").efficiency.kernel_overhead_us * 1e-6;
  CHECK((roofline.seconds(mxfp4) - overhead) / (roofline.seconds(bf16) - overhead) ==
        doctest::Approx((8.0 * 8192 * 2 + 8192.0 * 8192 * 4.25 / 8 + 8.0 * 8192 * 2) /
                        (8.0 * 8192 * 2 + 8192.0 * 8192 * 2 + 8.0 * 8192 * 2))
            .epsilon(1e-6));
  CHECK(mxfp4.key() == "expert_fc1.forward bf16 m=8 n=8192 k=8192 weights=0.53125");
}

TEST_CASE("fp8-block needs FP8 tensor cores, mxfp4 runs on any GPU, and auto KV follows the attention's format") {
  const ModelConfig m = catalog_model("llama3.1-8b");
  ServeConfig c;
  c.isl = 1000;
  c.osl = 100;
  c.precision = Precision::fp8_block;
  c.kv_precision = auto_kv_precision(c.precision);
  CHECK(c.kv_precision == Precision::fp8);
  const auto error = serve_config_error(m, catalog_system("a100-sxm-80gb"), c);
  REQUIRE(error.has_value());
  CHECK(error->message.find("fp8-block needs FP8 tensor cores") != std::string::npos);
  c.precision = Precision::mxfp4;
  c.kv_precision = auto_kv_precision(c.precision);
  CHECK(c.kv_precision == Precision::bf16);
  CHECK_FALSE(serve_config_error(m, catalog_system("a100-sxm-80gb"), c).has_value());
}
