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
