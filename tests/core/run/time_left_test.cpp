// The time left of a sweep (time_left.cpp), weighted by the bytes its cases move.
#include "dgx/core/run/time_left.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

using namespace dgx;

namespace {

/// A comm sweep: 8 B to 1 GiB doubling, each size out-of-place then in-place; a case takes 10 ms (the runner's
/// minimum time) plus its bytes at 10 GB/s (the bandwidth-bound cost dominates the last cases).
std::vector<std::pair<double, double>> sweep() {
  std::vector<std::pair<double, double>> cases;
  for (int log2 = 3; log2 <= 30; ++log2) {
    const double bytes = std::ldexp(1.0, log2);
    for (int placement = 0; placement < 2; ++placement) {
      cases.emplace_back(0.01 + bytes / 10e9, bytes);
    }
  }
  return cases;
}

}  // namespace

TEST_CASE("a doubling sweep's time left follows the bytes still to move, not the count of cases") {
  const auto cases = sweep();
  const std::size_t done = cases.size() - 8;  // 4 sizes left: 128 MiB to 1 GiB, most of the sweep's time
  TimeLeft t;
  double elapsed = 0, truth = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (i < done) {
      t.add(cases[i].first, cases[i].second);
      elapsed += cases[i].first;
    } else {
      truth += cases[i].first;
    }
  }
  const double estimate = t.estimate(cases.size() - done);
  CHECK(estimate == doctest::Approx(truth).epsilon(0.05));
  const double by_count = elapsed / static_cast<double>(done) * static_cast<double>(cases.size() - done);
  CHECK(by_count < truth / 4);  // what counting cases said: "1 s left" with most of the time to go
}

TEST_CASE("a case the runner stopped at its maximum time bounds the cases after it") {
  TimeLeft t;
  t.add(0.01, 1e6);
  t.add(0.1, 1e7);
  t.add(2.0, 1e8, /*capped=*/true);  // the next sizes would take 20 s, 200 s, ...: the runner stops them at 2 s
  CHECK(t.estimate(3) == doctest::Approx(6.0));
}

TEST_CASE("without sizes the time left is the mean time per case") {
  TimeLeft t;
  t.add(1.0, 0);
  t.add(3.0, 0);
  CHECK(t.estimate(5) == doctest::Approx(10.0));
  CHECK(TimeLeft().estimate(5) == 0);
}

TEST_CASE("one slow case on a loaded machine does not swing the time left from minutes to hours and back") {
  // A recorded pattern: a doubling sweep where one mid-size case took 400 times its due (the machine was busy).
  TimeLeft t;
  double elapsed = 0;
  std::vector<double> shown;
  for (int log2 = 20; log2 <= 26; ++log2) {
    const double bytes = std::ldexp(1.0, log2);
    const double seconds = log2 == 24 ? 400 * (0.01 + bytes / 10e9) : 0.01 + bytes / 10e9;
    t.add(seconds, bytes);
    elapsed += seconds;
    shown.push_back(t.steady_estimate(elapsed, static_cast<std::size_t>(30 - log2)));
  }
  // The raw estimate after the slow case jumps by more than 100 times; the steadied one moves by far less.
  TimeLeft raw;
  double raw_before = 0, raw_after = 0;
  for (int log2 = 20; log2 <= 24; ++log2) {
    const double bytes = std::ldexp(1.0, log2);
    raw.add(log2 == 24 ? 400 * (0.01 + bytes / 10e9) : 0.01 + bytes / 10e9, bytes);
    (log2 == 23 ? raw_before : raw_after) = raw.estimate(static_cast<std::size_t>(30 - log2));
  }
  CHECK(raw_after > 100 * raw_before);
  CHECK(shown[4] < 5 * shown[3]);
  for (const double s : shown) {
    CHECK(s >= 0);
  }
}
