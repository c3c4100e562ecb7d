// steady_state.cpp: the warm-up rule every imported series shares.
#include <doctest/doctest.h>

#include "steady_state.hpp"  // private to core/src/import: the test target adds that folder

using namespace dgx;

TEST_CASE("the steady state drops the first 10 percent of the steps and at least one, then takes the median") {
  auto s = logs::steady_state({9, 1, 2, 3, 100, 2, 2, 2, 2, 2, 2, 2}, "x.log");
  REQUIRE(s);
  CHECK(s->dropped == 2);  // 10% of 12, rounded up
  CHECK(s->steady.size() == 10);
  CHECK(s->median == 2);
  CHECK(s->describe() == "median of 10 steps, 2 warm-up steps dropped");
}

TEST_CASE("three steps are no steady state: one warm-up and two are too few") {
  auto s = logs::steady_state({5, 1, 1}, "x.log");
  REQUIRE_FALSE(s);
  CHECK(s.error().message.find("x.log: no steady state: the run logged only 3 steps") == 0);
}

TEST_CASE("a front step still far from the median after the 10 percent is ramp-up and dropped too") {
  // A Megatron MoE run: iteration 1 is start-up, iteration 2 still twice the steady time.
  std::vector<double> steps = {300, 6.4, 3.1, 3.0, 3.1, 3.05, 3.0, 3.1, 3.0, 3.1};
  auto s = logs::steady_state(steps, "x.log");
  REQUIRE(s);
  CHECK(s->dropped == 2);
  CHECK(s->median == doctest::Approx(3.075));
}

TEST_CASE("a mid-run excerpt drops no step for being first, and says why") {
  logs::WarmupRule rule;
  rule.first_step = 182;
  auto s = logs::steady_state({127.1, 127.5, 127.3, 127.6}, "x.log", rule);
  REQUIRE(s);
  CHECK(s->dropped == 0);
  CHECK(s->describe() == "median of 4 steps, 0 warm-up steps dropped (a mid-run excerpt)");
}

TEST_CASE("with import.warmup the user's count replaces the rule and one steady step is enough") {
  logs::WarmupRule rule;
  rule.warmup = 1;
  auto s = logs::steady_state({9, 2}, "x.log", rule);
  REQUIRE(s);
  CHECK(s->median == 2);
  CHECK(s->describe() == "median of 1 step, 1 warm-up step dropped (import.warmup)");
  auto none = logs::steady_state({9, 2}, "x.log");
  REQUIRE_FALSE(none);
  CHECK(none.error().message.find("--set import.warmup=N (0 allowed)") != std::string::npos);
}
