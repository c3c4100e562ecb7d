// What a workload declares of its rows (ABI 1.1, <dgx/abi/v1.h>: metric_descs, identity_keys, charts), as the host
// keeps it: lifted from the plugin by the descriptor adapter, recorded in every results document ("workloads",
// docs/results-schema.md) and read back with it, so that compare, history, --baseline, the store and the reports
// judge, pair and chart the rows of any workload from the file alone. The host knows no workload of its own: where
// a row's workload declares nothing (a plugin of ABI 1.0, an older document), the unit rule of better_direction and
// the host's context keys stand in.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dgx/core/support/json_cursor.hpp"
#include "dgx/core/support/quantity.hpp"
#include "dgx/json/json.hpp"

namespace dgx {

// document.hpp, which holds the declarations in its Report.
enum class ResultMode;
struct ResultRow;

struct MetricDeclaration {
  std::string name;  // a metric ("step_time") or a family ("ttft.*")
  std::string unit;
  Better better = Better::none;
  std::string label;  // short column title; empty: none declared
  std::string help;   // one line; empty: none declared

  [[nodiscard]] bool family() const { return name.size() > 2 && name.ends_with(".*"); }
  /// Whether it declares `metric`: the same name, or a member of the family ("ttft.p99" of "ttft.*").
  [[nodiscard]] bool matches(std::string_view metric) const;
};

/// "higher", "lower", "none": how documents and the store spell a declared direction.
std::string_view better_name(Better better);
/// The direction `name` spells; nullopt for another word.
std::optional<Better> parse_better(std::string_view name);

enum class ChartKind { lines, bars };
std::string_view to_string(ChartKind kind);

/// A chart of the HTML report (dgx_chart_desc): which rows (mode, table), what is drawn against what, and when
/// the host leaves it out.
struct ChartDeclaration {
  std::string title;
  ChartKind kind = ChartKind::lines;
  std::string x;
  std::string y;
  std::string series;  // "a|b,c": alternatives '|', parts joined ','; empty: one series
  std::string caption;
  std::optional<ResultMode> mode;  // nullopt: any
  std::string table;               // empty: any
  std::string unit;                // empty: the first row's
  std::string peak_metric;
  std::string peak_label;
  bool log_x = false;
  bool log_y = false;
  bool pareto = false;
  bool peak_line = false;
  bool alternative = false;  // drawn only when the chart before it was left out
};

struct WorkloadDeclarations {
  std::string plugin;
  std::string workload;
  std::vector<MetricDeclaration> metrics;
  /// The config keys (or "prefix.*" families) that identify a run; nullopt: the workload declares none.
  std::optional<std::vector<std::string>> identity_keys;
  std::vector<ChartDeclaration> charts;

  /// Nothing declared: a plugin of ABI 1.0, or one that states nothing of its rows.
  [[nodiscard]] bool empty() const { return metrics.empty() && !identity_keys && charts.empty(); }
  /// The declaration of `metric`: its own, else the family with the longest prefix; nullptr when none.
  [[nodiscard]] const MetricDeclaration* find_metric(std::string_view metric) const;
  /// The "workloads" entry of a results document.
  [[nodiscard]] json::Value to_json() const;
};

/// The declarations of `row`'s workload among `all`: the same workload, and the same plugin where both name one.
const WorkloadDeclarations* declarations_for(const std::vector<WorkloadDeclarations>& all, const ResultRow& row);

/// Which way metric `name` in `unit` of `row` is better: as the row's workload declares it, else by its unit and name
/// (better_direction), for undeclared metrics and documents written before ABI 1.1.
Better better_of(const std::vector<WorkloadDeclarations>& all, const ResultRow& row, std::string_view name,
                 std::string_view unit);

/// The declared metric of `row` (label, help), or nullptr.
const MetricDeclaration* declared_metric(const std::vector<WorkloadDeclarations>& all, const ResultRow& row,
                                         std::string_view metric);

/// Whether config key `key` identifies a row of the workload `declarations` describe (its series in the store, its
/// pair in compare): one of the declared identity keys or families; where none are declared (or `declarations` is
/// nullptr), any key but the host's context keys: framework, system and gpus. verdict.* never does (the host's).
bool identifies(const WorkloadDeclarations* declarations, std::string_view key);

/// A "workloads" entry read back; throws json::ReadError naming the member that is missing or of the wrong type.
WorkloadDeclarations read_declarations(const json::Cursor& entry);

/// Adds `d` to `all` unless the same plugin's workload is there already or it declares nothing.
void add_declarations(std::vector<WorkloadDeclarations>& all, WorkloadDeclarations d);

}  // namespace dgx
