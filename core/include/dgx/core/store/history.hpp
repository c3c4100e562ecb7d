// `dgxhost history`'s report: the store's series as rows (one per series: points, latest, median; with
// --detect, the regression verdict), their points as rows for charts and files, and the change points found
// (support/change_points.hpp), each with when it happened, by how much, its significance and which context
// fields changed at that point (driver, CUDA, NCCL, framework release, dgxhost's revision, hosts).
#pragma once

#include <cstddef>
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
  bool point_rows = false;    // a row per point too (JSON, CSV, HTML, or --points)
  bool across_hosts = false;  // one series across hosts (--across host): a multi-node job on changing nodes
};

/// Series that differ only by their hosts merged into one, points in time order (their hosts are each point's
/// context, and a change of hosts is reported like a change of driver).
std::vector<Series> merge_across_hosts(std::vector<Series> series);

/// The report of `series`: rows, a "History" note, and exit code 5 (check_failed) when a detected regression is
/// in the newest points of a series. A series too short to judge says "not enough history", never a pass.
Report history_report(const std::vector<Series>& series, const HistoryOptions& options);

}  // namespace dgx
