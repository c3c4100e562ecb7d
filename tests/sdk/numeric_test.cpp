// Software FP16/BF16/FP8 conversions: exact round trips, round to nearest even, overflow and NaN.
#include <doctest/doctest.h>

#include <cmath>
#include <initializer_list>

#include <dgx/sdk/numeric.hpp>

using namespace dgx::sdk::numeric;

TEST_CASE("every finite FP16 and FP8 code decodes and encodes back to itself") {
  for (std::uint32_t code = 0; code < 65536; ++code) {
    const double v = decode(kFp16, code);
    if (std::isnan(v)) {
      continue;
    }
    CHECK_MESSAGE(encode(kFp16, v) == code, code);
  }
  for (std::uint32_t code = 0; code < 256; ++code) {
    for (const Minifloat& f : {kE4M3, kE5M2}) {
      const double v = decode(f, code);
      if (std::isnan(v)) {
        continue;
      }
      CHECK_MESSAGE(encode(f, v) == code, code);
    }
  }
}

TEST_CASE("known values of the FP8 formats") {
  CHECK(e4m3_to_float(0x7e) == 448.0f);  // largest finite E4M3
  CHECK(std::isnan(e4m3_to_float(0x7f)));
  CHECK(e5m2_to_float(0x7b) == 57344.0f);
  CHECK(std::isinf(e5m2_to_float(0x7c)));
  CHECK(e4m3_to_float(0x01) == std::ldexp(1.0f, -9));  // smallest subnormal
  CHECK(float_to_e4m3(1.0f) == 0x38);
}

TEST_CASE("rounding is to nearest, ties to even") {
  CHECK(fp16_to_float(float_to_fp16(1.0f + std::ldexp(1.0f, -11))) == 1.0f);  // tie: stays on even
  CHECK(fp16_to_float(float_to_fp16(1.0f + 3 * std::ldexp(1.0f, -11))) == 1.0f + std::ldexp(1.0f, -9));
  CHECK(bf16_to_float(float_to_bf16(1.0f + std::ldexp(1.0f, -8))) == 1.0f);  // tie to even
  CHECK(e4m3_to_float(float_to_e4m3(1.0625f)) == 1.0f);                      // halfway between 1 and 1.125
  CHECK(e4m3_to_float(float_to_e4m3(1.1875f)) == 1.25f);                     // halfway between 1.125 and 1.25
}

TEST_CASE("overflow: infinity where the format has one, saturation for E4M3") {
  CHECK(std::isinf(fp16_to_float(float_to_fp16(1e6f))));
  CHECK(std::isinf(e5m2_to_float(float_to_e5m2(1e6f))));
  CHECK(e4m3_to_float(float_to_e4m3(1e6f)) == 448.0f);
  CHECK(e4m3_to_float(float_to_e4m3(-1e6f)) == -448.0f);
  CHECK(std::isnan(bf16_to_float(float_to_bf16(NAN))));
  CHECK(std::isnan(e4m3_to_float(float_to_e4m3(NAN))));
}
