// The stopping rule of the timed phase, on its own: fed statistics or samples, never a workload.
#include <doctest/doctest.h>

#include "dgx/core/config/runner_settings.hpp"
#include "dgx/core/measure/stopping_criterion.hpp"

using namespace dgx;

TEST_CASE("stopping: the criterion object collects samples and stops once its rule holds") {
  RunnerSettings s;
  s.min_samples = 5;
  s.min_time = 0.004;
  s.noise = 0.05;
  StoppingCriterion criterion(s);
  int added = 0;
  while (!criterion.add(0.001, 0.001 * ++added, false)) {
    REQUIRE(added < 100);
  }
  CHECK(added == 5);
  CHECK(criterion.samples().size() == 5);
  CHECK(criterion.measured_time() == doctest::Approx(0.005));
  CHECK(criterion.stats().median == doctest::Approx(0.001));
  CHECK(criterion.decision().criteria_met);
}

TEST_CASE("stopping: all criteria met") {
  RunnerSettings s;
  s.min_samples = 10;
  s.min_time = 0.01;
  s.noise = 0.01;
  const Stats quiet = compute_stats(std::vector<double>(20, 0.001));
  const StopDecision d = StoppingCriterion(s).evaluate(quiet, 0.02, 0.03, false);
  CHECK(d.stop);
  CHECK(d.criteria_met);
  CHECK(d.reason.find("criteria met: 20 samples") == 0);
}

TEST_CASE("stopping: keeps sampling until min_samples and min_time hold") {
  RunnerSettings s;
  s.min_samples = 10;
  s.min_time = 0.5;
  const Stats few = compute_stats(std::vector<double>(5, 0.001));
  CHECK_FALSE(StoppingCriterion(s).evaluate(few, 0.005, 0.01, false).stop);
  const Stats enough = compute_stats(std::vector<double>(10, 0.001));
  CHECK_FALSE(StoppingCriterion(s).evaluate(enough, 0.01, 0.02, false).stop);  // min_time not reached
}

TEST_CASE("stopping: max_time and max_samples stop with the unmet criterion named") {
  RunnerSettings s;
  s.min_samples = 100;
  s.max_time = 1.0;
  s.max_samples = 50;
  s.noise = 0.001;
  const Stats noisy = compute_stats({1.0, 2.0, 3.0});
  const StopDecision timeout = StoppingCriterion(s).evaluate(noisy, 6.0, 1.5, false);
  CHECK(timeout.stop);
  CHECK_FALSE(timeout.criteria_met);
  CHECK(timeout.reason.find("max_time 1.00 s reached; unmet: min_samples (3 of 100)") == 0);
  CHECK(timeout.reason.find("noise (") != std::string::npos);
  const StopDecision cancelled = StoppingCriterion(s).evaluate(noisy, 6.0, 0.5, true);
  CHECK(cancelled.reason.find("cancelled by the user") == 0);
  const Stats many = compute_stats(std::vector<double>{1.0, 2.0, 3.0, 4.0, 5.0});
  s.max_samples = 5;
  CHECK(StoppingCriterion(s).evaluate(many, 15, 0.1, false).reason.find("max_samples 5 reached") == 0);
}
