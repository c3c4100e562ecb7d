// Reporters: the same report as a terminal table, JSON (dgx.results/1), CSV or Markdown.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dgx/core/results.hpp"

namespace dgx {

enum class Format { table, json, csv, markdown };

std::optional<Format> format_from_name(std::string_view name);  // "table", "json", "csv", "md"
/// From a file name's extension (.json, .csv, .md, .txt); nullopt for others.
std::optional<Format> format_from_path(std::string_view path);

/// A rendered table: one per row group (ResultRow::table).
struct Table {
  std::string title;
  std::vector<std::string> headers;
  std::vector<bool> right_aligned;
  std::vector<std::vector<std::string>> cells;
};

/// Groups rows into tables. `all_columns` includes hidden metrics and fields and leaves numbers unscaled
/// (CSV); otherwise only visible ones, with time and byte columns scaled to a readable unit.
std::vector<Table> tabulate(const std::vector<ResultRow>& rows, bool all_columns);

/// Aligned columns with a rule under the header.
std::string render_text_table(const Table& table);

std::string render(const Report& report, Format format);
std::string render_table(const Report& report);
std::string render_markdown(const Report& report);
std::string render_csv(const Report& report);
std::string render_json(const Report& report);

/// Writes `report` to `path` in `format` via a temporary file and a rename, so that a reader never sees a
/// half-written file. The reason when it cannot.
std::optional<std::string> write_report(const Report& report, Format format, const std::string& path);

}  // namespace dgx
