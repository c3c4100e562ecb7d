// What a workload declares of its rows (ABI 1.1), as google/benchmark and nvbench let a benchmark declare its
// counters: which way each metric is better, which config keys identify a run, and how the HTML report charts the
// rows. dgxhost records the declarations in every results document, so compare, history and the store judge the
// rows from the file; it knows no workload of its own. Fill them in a WorkloadSpec (workload.hpp):
//
//   .metrics = {MetricSpec::higher("busbw", "GB/s", "bus bandwidth, nccl-tests' convention").with_label("busbw"),
//               MetricSpec::lower("time", "s", "time per operation, averaged over ranks"),
//               MetricSpec::neutral("size", "B", "message size")},
//   .identity_keys = {"comm.dtype", "comm.placement", "world_size"},
//   .charts = {ChartSpec::lines("Bus bandwidth against message size", "size", "busbw")
//                  .by("comm.collective|workload,comm.placement").log_x().peak("busbw.peak", "link peak")},
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include <dgx/plugin.h>
#include <dgx/sdk/host.hpp>

namespace dgx::sdk {

/// Which way a metric is better (dgx_better).
enum class Better : dgx_better { none = DGX_BETTER_NONE, higher = DGX_BETTER_HIGHER, lower = DGX_BETTER_LOWER };

/// One metric of the rows, or a family of them ("ttft.*"). Build with the named constructors.
struct MetricSpec {
  std::string name;
  std::string unit;  // one of <dgx/sdk/units.hpp>: the unit the rows use
  Better better = Better::none;
  std::string label;  // optional short column title
  std::string help;   // optional, one line

  /// A rate, a bandwidth, a utilisation.
  static MetricSpec higher(std::string name, std::string unit, std::string help = {}) {
    return {std::move(name), std::move(unit), Better::higher, {}, std::move(help)};
  }
  /// A time, a cost, a spread.
  static MetricSpec lower(std::string name, std::string unit, std::string help = {}) {
    return {std::move(name), std::move(unit), Better::lower, {}, std::move(help)};
  }
  /// Not judged: a count, a size, a configuration echoed as a metric.
  static MetricSpec neutral(std::string name, std::string unit, std::string help = {}) {
    return {std::move(name), std::move(unit), Better::none, {}, std::move(help)};
  }
  MetricSpec& with_label(std::string text) {
    label = std::move(text);
    return *this;
  }
};

/// A chart of the HTML report (dgx_chart_desc: which rows, and when the host leaves it out). Build with lines() or
/// bars(), then the modifiers.
struct ChartSpec {
  std::string title;
  dgx_chart_kind kind = DGX_CHART_LINES;
  std::string x;
  std::string y;
  std::string series;  // optional: "a|b,c" (alternatives '|', joined parts ',')
  std::string caption;
  dgx_result_mode mode = 0;  // 0: any
  std::string table;
  std::string unit;
  std::string peak_metric;
  std::string peak_label;
  std::uint32_t flags = 0;

  /// Numeric `x` against metric `y`, a line per series.
  static ChartSpec lines(std::string title, std::string x, std::string y) {
    ChartSpec c;
    c.title = std::move(title);
    c.kind = DGX_CHART_LINES;
    c.x = std::move(x);
    c.y = std::move(y);
    return c;
  }
  /// A bar of metric `y` per row, labelled by the text of `x`.
  static ChartSpec bars(std::string title, std::string x, std::string y) {
    ChartSpec c = lines(std::move(title), std::move(x), std::move(y));
    c.kind = DGX_CHART_BARS;
    return c;
  }
  ChartSpec& by(std::string names) {
    series = std::move(names);
    return *this;
  }
  ChartSpec& with_caption(std::string text) {
    caption = std::move(text);
    return *this;
  }
  ChartSpec& only(ResultMode rows) {
    mode = static_cast<dgx_result_mode>(rows);
    return *this;
  }
  ChartSpec& in_table(std::string name) {
    table = std::move(name);
    return *this;
  }
  /// The unit y is drawn in ("ms" for a metric the rows give in "s").
  ChartSpec& in_unit(std::string name) {
    unit = std::move(name);
    return *this;
  }
  ChartSpec& log_x() {
    flags |= DGX_CHART_LOG_X;
    return *this;
  }
  ChartSpec& log_y() {
    flags |= DGX_CHART_LOG_Y;
    return *this;
  }
  /// Series as points, the rows on the Pareto front (field "pareto" = "*") joined, the recommended one starred.
  ChartSpec& pareto() {
    flags |= DGX_CHART_PARETO;
    return *this;
  }
  /// A horizontal line at the peak `metric` gives (its value, or y as that percent of the peak when it is in "%").
  ChartSpec& peak(std::string metric, std::string label = {}) {
    flags |= DGX_CHART_PEAK_LINE;
    peak_metric = std::move(metric);
    peak_label = std::move(label);
    return *this;
  }
  /// Drawn only when the chart before it was left out.
  ChartSpec& alternative() {
    flags |= DGX_CHART_ALTERNATIVE;
    return *this;
  }
};

}  // namespace dgx::sdk
