#include <doctest/doctest.h>

#include <string>

#include <dgx/plugin.h>

TEST_CASE("precision properties describe each format") {
  const auto bf16 = dgx_precision_properties(DGX_PRECISION_BF16);
  CHECK(std::string(bf16.name) == "bf16");
  CHECK(bf16.storage_bits == 16);
  CHECK(bf16.exponent_bits == 8);
  const auto e4m3 = dgx_precision_properties(DGX_PRECISION_FP8_E4M3);
  CHECK(e4m3.max_finite == 448.0);
  CHECK(dgx_precision_properties(DGX_PRECISION_FP8_E5M2).max_finite == 57344.0);
  CHECK(dgx_precision_properties(DGX_PRECISION_MXFP8).block_size == 32);
  CHECK(dgx_precision_properties(DGX_PRECISION_NVFP4).block_size == 16);
  CHECK(dgx_precision_properties(DGX_PRECISION_FP16).max_finite == 65504.0);
}

TEST_CASE("precision names parse back and unknown ones are rejected") {
  for (dgx_precision p = DGX_PRECISION_FP32; p <= DGX_PRECISION_NVFP4; ++p) {
    CHECK(dgx_precision_from_name(dgx_precision_properties(p).name) == p);
  }
  CHECK(dgx_precision_from_name("fp7") == 0);
  CHECK(dgx_precision_from_name(nullptr) == 0);
  CHECK(dgx_precision_properties(99).name == nullptr);
}
