// Result rows as tables, and the lines above and under them: what every reporter is made of. Rows group into one
// table per ResultRow::table; the columns are the config keys that vary, the fields and the metrics, with times
// and bytes in a readable unit; collective sweeps get nccl-tests' layout (nccl_table.cpp).
#pragma once

#include <string>
#include <vector>

#include "dgx/core/results/document.hpp"

namespace dgx {

/// A rendered table: one per row group (ResultRow::table).
struct Table {
  std::string title;
  std::vector<std::string> headers;
  std::vector<bool> right_aligned;
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> groups;  // optional: a title above each column ("out-of-place"), empty for none
};

/// Rows that make one table: those of one ResultRow::table (the workload when it has none), in report order.
struct RowGroup {
  std::string title;
  std::vector<const ResultRow*> rows;
};

/// The row groups of `rows`, in the order of their first rows: one table, test suite or chart series each.
std::vector<RowGroup> group_rows(const std::vector<ResultRow>& rows);

/// The config keys whose values tell `rows` apart, in the order they first appear: a key varies when a row that has
/// it differs from another row, or another row lacks it (a reference row's missing keys do not count: a reference
/// has its own keys only). Keys a row hides (ResultRow::hidden_config) only with `include_hidden`.
std::vector<std::string> varying_config_keys(const std::vector<const ResultRow*>& rows, bool include_hidden);

/// A collective case's message size in whole bytes ("1073741824"): its `size` metric, by which nccl-tests names its
/// lines; empty for a row without one.
std::string case_size(const ResultRow& row);

/// Groups rows into tables. `all_columns` includes hidden metrics and fields and leaves numbers unscaled
/// (CSV); otherwise only visible ones, with time and byte columns scaled to a readable unit.
std::vector<Table> tabulate(const std::vector<ResultRow>& rows, bool all_columns);

/// One table of `rows`, whatever their groups, titled `title`: what tabulate() makes of each group (except the
/// nccl-tests layout of collective sweeps), and the CSV reporter of all rows at once.
Table build_table(const std::string& title, const std::vector<const ResultRow*>& rows, bool all_columns);

/// The lines above the tables: what ran, where, with which overrides (from the context block).
std::vector<std::string> header_lines(const Report& report);
/// The lines under the tables: the distinct values of the rows' hidden provenance fields (timing, cache, ...).
std::vector<std::string> provenance_lines(const std::vector<ResultRow>& rows);

/// Aligned columns with a rule under the header.
std::string render_text_table(const Table& table);

}  // namespace dgx
