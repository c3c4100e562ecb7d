// The formats a report is written in (--format, or a results file's extension); one reporter each
// (report/reporters.hpp).
#pragma once

#include <optional>
#include <string_view>

namespace dgx {

enum class Format { table, json, csv, markdown, html };

std::optional<Format> format_from_name(std::string_view name);  // "table", "json", "csv", "md", "html"
/// From a file name's extension (.json, .csv, .md, .html, .txt); nullopt for others.
std::optional<Format> format_from_path(std::string_view path);

}  // namespace dgx
