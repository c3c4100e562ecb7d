// The GEMM sweep (gemm_case.cpp): shapes × precisions parsed and validated without a GPU.
#include <doctest/doctest.h>

#include "dgx/llm/kernels/gemm_case.hpp"

#include <stdexcept>
#include <string>

using namespace dgx::llm::kernels;

namespace {

std::string error_of(const std::vector<std::string>& shapes, const std::vector<std::string>& precisions) {
  try {
    (void)gemm_sweep(shapes, precisions);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a shape is MxNxK with positive integers, x or X") {
  const GemmCase c = parse_gemm_shape("8192x4096X1024");
  CHECK(c.m == 8192);
  CHECK(c.n == 4096);
  CHECK(c.k == 1024);
  CHECK(c.flops() == 2.0 * 8192 * 4096 * 1024);
  CHECK(c.label() == "8192x4096x1024 bf16");
}

TEST_CASE("malformed shapes are rejected with the text and the expected form") {
  for (const char* bad : {"8192x8192", "0x1x1", "axbxc", "1x2x3x4", "", "4096x-1x8", "1x1x2000000"}) {
    INFO(bad);
    CHECK_THROWS_AS((void)parse_gemm_shape(bad), std::invalid_argument);
  }
  CHECK(error_of({"8192x8192"}, {"bf16"}).find("gemm shape '8192x8192': expected MxNxK") == 0);
}

TEST_CASE("the sweep is every shape with every precision, shapes outermost") {
  const auto cases = gemm_sweep({"4096x4096x4096", "8192x8192x8192"}, {"bf16", "fp8"});
  REQUIRE(cases.size() == 4);
  CHECK(cases[0].label() == "4096x4096x4096 bf16");
  CHECK(cases[1].label() == "4096x4096x4096 fp8");
  CHECK(cases[3].label() == "8192x8192x8192 fp8");
  CHECK(cases[1].bytes() == 4096.0 * 4096 * (1 + 1 + 2));
  CHECK(cases[0].bytes() == 4096.0 * 4096 * (2 + 2 + 2));
}

TEST_CASE("empty lists, unknown precisions and FP8 shapes cuBLASLt cannot run are configuration errors") {
  CHECK(error_of({}, {"bf16"}).find("gemm.shapes is empty") == 0);
  CHECK(error_of({"64x64x64"}, {}).find("gemm.precisions is empty") == 0);
  CHECK(error_of({"64x64x64"}, {"fp16"}).find("unknown precision 'fp16'") != std::string::npos);
  CHECK(error_of({"64x64x72"}, {"fp8"}).find("FP8 needs m, n and k multiples of 16") != std::string::npos);
  CHECK(error_of({"64x64x72"}, {"bf16"}).empty());
}
