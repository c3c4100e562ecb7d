#include <doctest/doctest.h>

#include "sweep.hpp"

using namespace dgx::plugins::comm;

TEST_CASE("a factor sweep doubles from min to max inclusive") {
  CHECK(sweep_sizes({8, 64, 2, 0}) == std::vector<std::uint64_t>{8, 16, 32, 64});
  CHECK(sweep_sizes({8, 100, 4, 0}) == std::vector<std::uint64_t>{8, 32});
  CHECK(sweep_sizes({1024, 1024, 2, 0}) == std::vector<std::uint64_t>{1024});
}

TEST_CASE("an increment sweep adds") {
  CHECK(sweep_sizes({100, 400, 2, 100}) == std::vector<std::uint64_t>{100, 200, 300, 400});
}

TEST_CASE("invalid sweeps name the key") {
  CHECK_THROWS_WITH(sweep_sizes({0, 8, 2, 0}), doctest::Contains("comm.min_bytes (-b)"));
  CHECK_THROWS_WITH(sweep_sizes({64, 8, 2, 0}), doctest::Contains("comm.max_bytes (-e) 8 is below"));
  CHECK_THROWS_WITH(sweep_sizes({8, 64, 1, 0}), doctest::Contains("comm.step_factor (-f)"));
  CHECK_THROWS_WITH(sweep_sizes({1, 1ull << 40, 0, 1}), doctest::Contains("more than 4096 sizes"));
}

TEST_CASE("sizes print in binary units when exact") {
  CHECK(format_bytes(8) == "8 B");
  CHECK(format_bytes(65536) == "64 KiB");
  CHECK(format_bytes(1u << 30) == "1 GiB");
  CHECK(format_bytes(1000) == "1000 B");
}
