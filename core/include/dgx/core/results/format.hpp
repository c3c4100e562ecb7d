// The formats a report is written in (--format, or a results file's extension); one reporter each
// (report/reporters.hpp).
#pragma once

#include <optional>
#include <string_view>

namespace dgx {

/// junit: JUnit XML for CI (one test case per row); prometheus: the Prometheus text format for node_exporter's textfile
/// collector (one gauge sample per row and metric).
enum class Format { table, json, csv, markdown, html, junit, prometheus };

/// The --format names, for help texts and messages.
inline constexpr std::string_view kFormatNames = "table, json, csv, md, html, junit or prometheus";
/// The extensions a results file may have (-o FILE), for help texts and messages.
inline constexpr std::string_view kFormatExtensions = ".json .csv .md .html .txt .xml .prom";

/// "table", "json", "csv", "md", "html", "junit", "prometheus" (and "markdown", "htm").
std::optional<Format> format_from_name(std::string_view name);
/// From a file name's extension (kFormatExtensions: .xml is junit, .prom prometheus); nullopt for others.
std::optional<Format> format_from_path(std::string_view path);

}  // namespace dgx
