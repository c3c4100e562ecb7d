// steady_state.cpp: the warm-up rule every imported series shares.
#include <doctest/doctest.h>

#include "steady_state.hpp"  // private to core/src/import: the test target adds that folder

using namespace dgx;

TEST_CASE("the steady state drops the first 10 percent of the steps and at least one, then takes the median") {
  auto s = detail::steady_state({9, 1, 2, 3, 100, 2, 2, 2, 2, 2, 2, 2}, "x.log");
  REQUIRE(s);
  CHECK(s->dropped == 2);  // 10% of 12, rounded up
  CHECK(s->steady.size() == 10);
  CHECK(s->median == 2);
  CHECK(s->describe() == "median of 10 steps, 2 warm-up steps dropped");
}

TEST_CASE("three steps are no steady state: one warm-up and two are too few") {
  auto s = detail::steady_state({5, 1, 1}, "x.log");
  REQUIRE_FALSE(s);
  CHECK(s.error().code == ExitCode::usage);
  CHECK(s.error().message.find("x.log: no steady state: the run logged only 3 steps") == 0);
}
