#include "dgx/catalog/framework.hpp"
#include "dgx/catalog/model_catalog.hpp"
#include "dgx/catalog/precision.hpp"
#include "dgx/catalog/pricing.hpp"
#include "dgx/catalog/system_catalog.hpp"

#include <doctest/doctest.h>

using namespace dgx::catalog;

TEST_CASE("precision names parse and print, unknown names do not") {
  for (const Precision p : kAllPrecisions) {
    CHECK(parse_precision(to_string(p)) == p);
  }
  CHECK_FALSE(parse_precision("fp16").has_value());
}

TEST_CASE("GEMM operands shrink with the format, block scales included") {
  CHECK(gemm_operand_bytes(Precision::bf16) == 2);
  CHECK(gemm_operand_bytes(Precision::fp8) == 1);
  CHECK(gemm_operand_bytes(Precision::mxfp8) == doctest::Approx(1 + 1.0 / 32));
  CHECK(gemm_operand_bytes(Precision::nvfp4) == doctest::Approx(0.5 + 1.0 / 16));
  CHECK(peak_column(Precision::mxfp8) == PeakColumn::fp8);
  CHECK(peak_column(Precision::nvfp4) == PeakColumn::fp4);
  CHECK_FALSE(casts_gemm_inputs(Precision::bf16));
  CHECK(casts_gemm_inputs(Precision::fp8));
}

TEST_CASE("the checkpoint formats parse as serving precisions only, and read their weights at the format's bytes") {
  for (const Precision p : kServePrecisions) {
    CHECK(parse_serve_precision(to_string(p)) == p);
  }
  CHECK(parse_serve_precision("mxfp4") == Precision::mxfp4);
  CHECK(parse_serve_precision("fp8-block") == Precision::fp8_block);
  CHECK_FALSE(parse_precision("mxfp4").has_value());  // never a training precision
  CHECK_FALSE(is_gemm_precision(Precision::mxfp4));
  CHECK(is_gemm_precision(Precision::nvfp4));
  CHECK(gemm_operand_bytes(Precision::mxfp4) == doctest::Approx(4.25 / 8));  // E2M1 + one E8M0 per 32
  CHECK(gemm_operand_bytes(Precision::fp8_block) == doctest::Approx(1 + 4.0 / (128 * 128)));
  CHECK(peak_column(Precision::fp8_block) == PeakColumn::fp8);
  CHECK(parse_serve_precision("int4") == Precision::int4);
  CHECK_FALSE(parse_precision("int4").has_value());
  CHECK(gemm_operand_bytes(Precision::int4) == doctest::Approx(4.5 / 8));  // 4-bit integers + one BF16 per 32
  CHECK(peak_column(Precision::int4) == PeakColumn::bf16);                 // W4A16: multiplied in BF16
}
