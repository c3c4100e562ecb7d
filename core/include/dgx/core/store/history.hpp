// `dgxhost history`'s report: the store's series as rows (one per series: points, latest, median; with
// --detect, the regression verdict), their points as rows for charts and files, and the change points found
// (support/change_points.hpp), each with when it happened, by how much, its significance and which context
// fields changed at that point (driver, CUDA, NCCL, framework release, dgxhost's revision, hosts).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "dgx/core/results/document.hpp"
#include "dgx/core/store/store.hpp"
#include "dgx/core/support/change_points.hpp"

namespace dgx {

enum class DetectMethod { none, edivisive, window };

struct DetectOptions {
  DetectMethod method = DetectMethod::none;
  ChangePointOptions change_points;
  WindowOptions window;
  /// E-divisive: a change point among the newest `recent` points is new, and a new regression fails the gate.
  /// (The window test's newest points are window.recent.)
  std::size_t recent = 5;
};

struct HistoryOptions {
  DetectOptions detect;
  bool point_rows = false;  // a row per point too (JSON, CSV, HTML, or --points)
};

/// The report of series handed over one at a time (Store::each_series): add() judges a series and keeps its rows,
/// never its points, so memory grows with the series listed, not with the points read. finish() gives the report:
/// rows, a "History" note, and exit code 5 (check_failed) when a detected regression is in the newest points of a
/// series. A series too short to judge says "not enough history", never a pass.
class HistoryReportBuilder {
public:
  explicit HistoryReportBuilder(HistoryOptions options) : options_(options) {}
  void add(const Series& series);
  Report finish();
  /// How many series were added, and the most points one had.
  [[nodiscard]] std::size_t series() const { return series_; }
  [[nodiscard]] std::size_t longest() const { return longest_; }

private:
  HistoryOptions options_;
  Report report_;
  std::map<std::string, int> names_;     // of the series so far, by metric: a name that repeats gets a number
  std::map<std::string, int> verdicts_;  // how many series got each verdict
  std::vector<std::string> regressed_;
  std::size_t series_ = 0, points_ = 0, longest_ = 0;
};

/// The report of `series` (HistoryReportBuilder over a list).
Report history_report(const std::vector<Series>& series, const HistoryOptions& options);

}  // namespace dgx
