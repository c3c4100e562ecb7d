// bench_change_points: how often the two detectors of dgxhost history --detect find a step of 2%, 5% and 10% at
// 1% and 3% noise (CV), how often they flag pure noise, and how long E-Divisive takes on a series of 5000 runs.
// Series are seeded Gaussian noise around 100 (SeededRandom: the same numbers on every platform), so the rates are
// the same on every run; only the timings vary. Default options throughout (alpha 0.05, 199 permutations,
// min_segment 3; window: the newest 3 against 10, threshold 5%).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "dgx/core/support/change_points.hpp"
#include "dgx/core/support/seeded_random.hpp"

namespace {

using namespace dgx;

constexpr int series_per_case = 500;

// `points` runs around 100 with relative noise `cv`, every run from `step_at` on changed by `step`.
std::vector<double> series(std::size_t points, double cv, std::size_t step_at, double step, std::uint64_t seed) {
  SeededRandom random(seed);
  std::vector<double> s(points);
  for (std::size_t i = 0; i < points; ++i) {
    s[i] = 100 * (1 + cv * random.normal()) * (i >= step_at ? 1 + step : 1);
  }
  return s;
}

// E-Divisive found the step: a change point within 1 run of it, in its direction.
bool found_step(const std::vector<double>& s, std::size_t step_at, double step) {
  for (const ChangePoint& c : e_divisive_means(s)) {
    if (c.index + 1 >= step_at && c.index <= step_at + 1 && c.relative * step > 0) {
      return true;
    }
  }
  return false;
}

void detection(std::size_t points, std::size_t step_at) {
  std::printf("E-Divisive, %zu runs, step at run %zu (the newest %zu changed): %% of %d series found within 1 run\n",
              points, step_at, points - step_at, series_per_case);
  std::printf("  %6s %8s %8s %8s\n", "CV", "+2%", "+5%", "+10%");
  for (const double cv : {0.01, 0.03}) {
    std::printf("  %5.0f%%", 100 * cv);
    for (const double step : {0.02, 0.05, 0.10}) {
      int hits = 0;
      for (int k = 0; k < series_per_case; ++k) {
        hits += found_step(series(points, cv, step_at, step, 1000 + static_cast<std::uint64_t>(k)), step_at, step);
      }
      std::printf(" %7.1f%%", 100.0 * hits / series_per_case);
    }
    std::printf("\n");
  }
}

void window_detection() {
  const WindowOptions o;
  const std::size_t points = o.window + o.recent;
  std::printf("Window test, %zu runs, the newest %zu changed: %% of %d series significant, in its direction\n", points,
              o.recent, series_per_case);
  std::printf("  %6s %8s %8s %8s\n", "CV", "+2%", "+5%", "+10%");
  for (const double cv : {0.01, 0.03}) {
    std::printf("  %5.0f%%", 100 * cv);
    for (const double step : {0.02, 0.05, 0.10}) {
      int hits = 0;
      for (int k = 0; k < series_per_case; ++k) {
        const auto c = window_change(series(points, cv, o.window, step, 1000 + static_cast<std::uint64_t>(k)), o);
        hits += c && c->significant && c->relative * step > 0;
      }
      std::printf(" %7.1f%%", 100.0 * hits / series_per_case);
    }
    std::printf("\n");
  }
}

// The share of `count` series of `points` runs (3% CV, seeded from `seed`) that each detector flags; `spike`, when
// not 1, multiplies the newest run.
void flagged(const char* name, std::size_t points, double spike, int count) {
  int e_divisive = 0, window = 0;
  for (int k = 0; k < count; ++k) {
    std::vector<double> s = series(points, 0.03, points, 0, 90000 + static_cast<std::uint64_t>(k));
    s.back() *= spike;
    e_divisive += !e_divisive_means(s).empty();
    const auto c = window_change(s);
    window += c && c->significant;
  }
  std::printf("  %-30s %5zu runs: E-Divisive %5.1f%%, window test %5.1f%%\n", name, points, 100.0 * e_divisive / count,
              100.0 * window / count);
}

void false_positives() {
  const int count = 4 * series_per_case;
  std::printf("No change (3%% CV; the rates do not depend on the CV): %% of %d series flagged\n", count);
  for (const std::size_t points : {13, 30, 100, 1000}) {
    flagged("pure noise", points, 1, count);
  }
  for (const std::size_t points : {13, 30, 100, 1000}) {
    flagged("one spike (+50%) as the newest", points, 1.5, count);
  }
}

// The median of 5 calls, in milliseconds, and the change points the call finds.
void time_one(const char* name, const std::vector<double>& s) {
  std::vector<double> ms;
  std::size_t found = 0;
  for (int r = 0; r < 5; ++r) {
    const auto start = std::chrono::steady_clock::now();
    found = e_divisive_means(s).size();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("  %-28s %8.1f ms, %zu change point(s)\n", name, ms[2], found);
}

void speed() {
  std::printf("Time of one e_divisive_means call, 5000 runs, 3%% CV, 199 permutations (median of 5)\n");
  time_one("pure noise", series(5000, 0.03, 5000, 0, 7));
  std::vector<double> steps = series(5000, 0.03, 1500, 0.05, 8);
  for (std::size_t i = 3500; i < steps.size(); ++i) {
    steps[i] *= 0.9;
  }
  time_one("+5% at 1500, -10% at 3500", steps);
}

}  // namespace

int main() {
  detection(40, 30);
  detection(40, 37);
  window_detection();
  false_positives();
  speed();
  return 0;
}
