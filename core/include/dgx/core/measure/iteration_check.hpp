// Does a workload's run() honour request.iterations? One that runs a single iteration whatever it is asked
// reports times runner.batch times too small, and nothing in the numbers shows it (a third-party plugin tried
// this way reported 645 GB/s instead of 66.8 with runner.batch=10). So during the warm-up of a run's first case,
// when batch > 1, the host times samples of 1 iteration and of `batch`, and refuses a workload whose time does
// not grow with the count. Once per run: honouring the count is a property of the code, not of a case.
//
// The rule is generous, so that noise and per-call overhead never fail an honest plugin:
//  - each count is timed kProbeSamples times and the fastest sample counts (preemption only ever adds time);
//  - the count is honoured when M iterations take at least min(2, (1 + M) / 2) times as long as one;
//  - when they do not, a fixed cost per sample may hide the iterations (call overhead; with more ranks than
//    cores, a rank descheduled after the barrier: tens of ms), so the count grows eightfold, up to four times,
//    until the iterations outweigh it; only a count that never makes the sample twice as long fails;
//  - samples shorter than kFloor are inconclusive (host clock and call overhead): the check then passes.
// An honest workload usually passes at the batch itself (six samples); a cheap iteration behind a costly call
// takes a few more, as long as a couple of the costly calls.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "dgx/core/support/expected.hpp"

namespace dgx {

/// What a workload that ignores its iteration count did: M iterations took about as long as one.
struct IgnoredIterations {
  std::uint32_t iterations = 0;  // M, the largest count tried
  double many_seconds = 0;       // the fastest sample of M iterations
  double one_seconds = 0;        // the fastest sample of 1 iteration

  /// "a sample of 80 iterations took 1.01 ms, one of 1 iteration 1.00 ms (expected about 80 times as long)"
  [[nodiscard]] std::string evidence() const;
};

struct IterationCheck {
  static constexpr int kProbeSamples = 3;
  static constexpr int kMaxGrowths = 4;
  static constexpr std::uint32_t kGrowth = 8;
  static constexpr double kFloor = 20e-6;  // s

  /// Total seconds of one sample of `iterations` iterations (a warm-up call of run()), or why it failed.
  using Timer = std::function<Expected<double>(std::uint32_t iterations)>;

  /// Applies the rule for runner.batch = `batch` (> 1) with `time`; nullopt when the workload honours the count
  /// or the evidence is inconclusive, the evidence when it ignores it, a Failure when a sample failed.
  static Expected<std::optional<IgnoredIterations>> run(std::uint32_t batch, const Timer& time);
};

}  // namespace dgx
