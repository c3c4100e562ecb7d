#include "dgx/llm/system_catalog.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace dgx::llm;

TEST_CASE("the embedded system catalog holds all 7 systems with their required fields") {
  const std::vector<std::string> expected = {"a100-sxm-80gb", "b200",     "b300",    "gb200-nvl72",
                                             "gb300-nvl72",   "h100-sxm", "h200-sxm"};
  CHECK(system_names() == expected);
  for (const std::string& name : expected) {
    CAPTURE(name);
    const auto s = find_system(name);
    REQUIRE_MESSAGE(s.has_value(), (s ? "" : s.error().message));
    CHECK(s->name == name);
    CHECK_FALSE(s->source.empty());
    CHECK(s->peak_bf16_tflops > 0);
    CHECK(s->hbm_gib > 0);
    CHECK(s->hbm_tb_s > 0);
    CHECK(s->nvlink_gb_s > 0);
    CHECK(s->nvlink_domain >= 8);
    CHECK(s->nic_gb_s > 0);
    CHECK(s->tdp_w > 0);
    CHECK(s->efficiency.gemm_ceiling_bf16 > 0);
    CHECK(s->efficiency.memory_bw > 0);
  }
}

TEST_CASE("H100 SXM facts come from the hardware table") {
  const auto h100 = find_system("h100-sxm");
  REQUIRE(h100.has_value());
  CHECK(h100->dense_peak_flops(Precision::bf16) == doctest::Approx(989e12));
  CHECK(h100->dense_peak_flops(Precision::fp8) == doctest::Approx(1979e12));
  CHECK(h100->hbm_gib == 80);
  CHECK(h100->hbm_tb_s == doctest::Approx(3.35));
  CHECK(h100->nvlink_gb_s == 450);
  CHECK(h100->nvlink_domain == 8);
  CHECK(h100->nic_gb_s == doctest::Approx(50));
  CHECK(h100->tdp_w == 700);
}

TEST_CASE("precision support follows the tensor cores: no FP8 on A100, block-scaled formats only on Blackwell") {
  CHECK_FALSE(find_system("a100-sxm-80gb")->supports(Precision::fp8));
  CHECK(find_system("h100-sxm")->supports(Precision::fp8));
  CHECK_FALSE(find_system("h100-sxm")->supports(Precision::nvfp4));
  CHECK_FALSE(find_system("h200-sxm")->supports(Precision::mxfp8));
  CHECK(find_system("b200")->supports(Precision::mxfp8));
  CHECK(find_system("gb300-nvl72")->dense_peak_flops(Precision::nvfp4) == doctest::Approx(14700e12));
  CHECK(find_system("gb200-nvl72")->nvlink_domain == 72);
}

TEST_CASE("a malformed system file reports the file and the key") {
  const auto s = parse_system("name = \"x\"\ndisplay = \"x\"\nsource = \"x\"\n[peak_tflops]\nbf16 = 10\n", "x.toml");
  REQUIRE_FALSE(s.has_value());
  CHECK(s.error().message == "x.toml: key 'peak_tflops.fp8' is missing");
}

TEST_CASE("an efficiency outside its physical range is rejected with the range") {
  auto text = std::string(R"(name = "x"
display = "x"
source = "x"
[peak_tflops]
bf16 = 10
fp8 = 0
fp4 = 0
[gpu]
sms = 10
hbm_gib = 10
hbm_tb_s = 1
tdp_w = 100
[network]
nvlink_gb_s = 10
nvlink_domain = 8
nic_gb_s = 1
[efficiency]
gemm_ceiling_bf16 = 1.5
)");
  const auto s = parse_system(text, "x.toml");
  REQUIRE_FALSE(s.has_value());
  CHECK(s.error().message.find("x.toml: key 'efficiency.gemm_ceiling_bf16' is 1.5") == 0);
}

TEST_CASE("an unknown system is an error that lists the catalog") {
  const auto s = find_system("tpu-v5");
  REQUIRE_FALSE(s.has_value());
  CHECK(s.error().message.find("unknown system 'tpu-v5'; the catalog has: a100-sxm-80gb") == 0);
}

TEST_CASE("b300: Blackwell Ultra in an 8-GPU node, its architecture, host link and faster FP4") {
  const SystemProfile b300 = *find_system("b300");
  CHECK(b300.architecture == "blackwell-ultra");
  CHECK(b300.nvlink_domain == 8);
  CHECK(b300.nic_gb_s == 100);  // ConnectX-8, 800 Gb/s per GPU
  CHECK(b300.peak_fp4_tflops > 1.4 * find_system("b200")->peak_fp4_tflops);
  CHECK(b300.host_link_gb_s == 128);
  CHECK(find_system("h100-sxm")->architecture == "hopper");  // derived from the formats it supports
  CHECK(find_system("h100-sxm")->host_link_gb_s == 64);      // PCIe 5.0 x16 unless the file names one
  CHECK(find_system("gb200-nvl72")->host_link_gb_s == 225);  // NVLink-C2C
}
