// How long the cases still to run will take, from those finished, weighted by the bytes each moves (its "size"
// metric: a collective's message): a case takes at least the quickest one's time, and the time per byte of the
// largest size so far times its bytes; the sizes still to come continue the sweep's progression (each size's
// repeats, then x its growth factor), and no case longer than one the runner stopped at its maximum time. A comm sweep
// doubles its message 20 times: counting cases alone said "1 s left" with 37 s to go. Rows without a size fall back to
// the mean time per case. What a progress line shows is steadied over the last estimates (steady_estimate).
#pragma once

#include <cstddef>
#include <vector>

namespace dgx {

class TimeLeft {
public:
  /// A case finished `seconds` after the one before (or the start), moving `bytes` (0: unknown); `capped` when the
  /// runner stopped it at its maximum time (runner.max_time): no case takes much longer than that one.
  void add(double seconds, double bytes, bool capped = false);
  /// The estimated seconds the next `left` cases take.
  [[nodiscard]] double estimate(std::size_t left) const;
  /// The seconds left as a progress line shows them, `elapsed` seconds into the run: the median of the finish times
  /// the last five estimates predicted, less the time elapsed (at least 0). One slow case on a loaded machine
  /// no longer swings the line from a minute to a hundred hours and back.
  [[nodiscard]] double steady_estimate(double elapsed, std::size_t left);

private:
  struct Case {
    double seconds = 0;
    double bytes = 0;
    bool capped = false;
  };
  std::vector<Case> cases_;
  std::vector<double> finishes_;  ///< the finish times (seconds into the run) the last estimates predicted
  /// The sizes of the next `left` cases, continuing the finished ones' progression; empty when there is none.
  [[nodiscard]] std::vector<double> next_sizes(std::size_t left) const;
};

}  // namespace dgx
