// Reporters: the same report as a terminal table, JSON (dgx.results/1), CSV, Markdown or a self-contained HTML page
// with charts (html_reporter.cpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dgx/core/results/document.hpp"
#include "dgx/core/results/format.hpp"

namespace dgx {

/// A rendered table: one per row group (ResultRow::table).
struct Table {
  std::string title;
  std::vector<std::string> headers;
  std::vector<bool> right_aligned;
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> groups;  // optional: a title above each column ("out-of-place"), empty for none
};

/// Groups rows into tables. `all_columns` includes hidden metrics and fields and leaves numbers unscaled
/// (CSV); otherwise only visible ones, with time and byte columns scaled to a readable unit.
std::vector<Table> tabulate(const std::vector<ResultRow>& rows, bool all_columns);

/// The lines above the tables: what ran, where, with which overrides (from the context block).
std::vector<std::string> header_lines(const Report& report);
/// The lines under the tables: the distinct values of the rows' hidden provenance fields (timing, cache, ...).
std::vector<std::string> provenance_lines(const std::vector<ResultRow>& rows);

/// Aligned columns with a rule under the header.
std::string render_text_table(const Table& table);

std::string render(const Report& report, Format format);
std::string render_table(const Report& report);
std::string render_markdown(const Report& report);
std::string render_csv(const Report& report);
std::string render_json(const Report& report);
std::string render_html(const Report& report);  // html_reporter.cpp

/// Writes `report` to `path` in `format` atomically (output_path.hpp: never a half-written file, never through a
/// link or over a device). The reason, with the OS's, when it cannot.
std::optional<std::string> write_report(const Report& report, Format format, const std::string& path);

}  // namespace dgx
