// The rule that tells a run() which ignores request.iterations from an honest one, fed with made-up timings.
#include <doctest/doctest.h>

#include <vector>

#include "dgx/core/measure/iteration_check.hpp"

using namespace dgx;

namespace {

// A workload whose sample of n iterations takes overhead + n x work seconds (or, ignoring n, overhead + work).
struct FakeWorkload {
  double overhead = 0;
  double work = 0;
  bool ignores = false;
  std::vector<std::uint32_t> asked{};

  IterationCheck::Timer timer() {
    return [this](std::uint32_t n) -> Expected<double> {
      asked.push_back(n);
      return overhead + (ignores ? 1 : n) * work;
    };
  }
};

}  // namespace

TEST_CASE("a workload that scales with the count passes with one look at the batch") {
  FakeWorkload w{0, 1e-3};
  auto verdict = IterationCheck::run(10, w.timer());
  REQUIRE(verdict);
  CHECK_FALSE(verdict.value());
  CHECK(w.asked == std::vector<std::uint32_t>{1, 1, 1, 10, 10, 10});
}

TEST_CASE("a workload that ignores the count is caught, with the evidence") {
  FakeWorkload w{0, 1e-3, true};
  auto verdict = IterationCheck::run(10, w.timer());
  REQUIRE(verdict);
  REQUIRE(verdict.value());
  CHECK(verdict.value()->iterations == 40960);  // grown four times, eightfold, before concluding
  CHECK(verdict.value()->evidence() ==
        "a sample of 40960 iterations took 1.00 ms, one of 1 iteration 1.00 ms (expected about 40960 times as long)");
}

TEST_CASE("a rank descheduled at every sample hides cheap iterations only until the count grows") {
  FakeWorkload w{24e-3, 2.2e-6};  // mpirun --oversubscribe on a loaded machine: 24 ms lost per sample
  auto verdict = IterationCheck::run(20, w.timer());
  REQUIRE(verdict);
  CHECK_FALSE(verdict.value());
  CHECK(w.asked.back() == 81920);
}

TEST_CASE("a per-call overhead that hides small iterations is seen through by growing the count") {
  FakeWorkload w{50e-6, 10e-9};  // 50 us per call, 10 ns per iteration: 10 iterations look like one
  auto verdict = IterationCheck::run(10, w.timer());
  REQUIRE(verdict);
  CHECK_FALSE(verdict.value());
  CHECK(w.asked.back() > 10);
}

TEST_CASE("samples too short to time are inconclusive, and the check passes") {
  FakeWorkload w{200e-9, 0};  // no work at all: only the call
  auto verdict = IterationCheck::run(10, w.timer());
  REQUIRE(verdict);
  CHECK_FALSE(verdict.value());
}

TEST_CASE("two iterations need only half again the time of one") {
  FakeWorkload w{1e-3, 1e-3};  // overhead as large as the work: 2 iterations take 1.5x
  auto verdict = IterationCheck::run(2, w.timer());
  REQUIRE(verdict);
  CHECK_FALSE(verdict.value());
}

TEST_CASE("a failing sample ends the check with its failure") {
  const IterationCheck::Timer failing = [](std::uint32_t) -> Expected<double> {
    return Failure{ExitCode::run_failed, "run failed"};
  };
  auto verdict = IterationCheck::run(10, failing);
  REQUIRE_FALSE(verdict);
  CHECK(verdict.error().message == "run failed");
}
