// Reporters: the same report as a terminal table or Markdown (text_reporter.cpp), JSON (dgx.results/1,
// json_reporter.cpp), CSV (csv_reporter.cpp) or a self-contained HTML page with charts (html_reporter.cpp), all
// made of the tables of table.hpp.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "dgx/core/results/document.hpp"
#include "dgx/core/results/format.hpp"

namespace dgx {

/// `width`: the columns the terminal table's notes and source lines wrap to (wrap.hpp stdout_width()); 0, and
/// every other format: no wrapping.
std::string render(const Report& report, Format format, std::size_t width = 0);
std::string render_table(const Report& report, std::size_t width = 0);
std::string render_markdown(const Report& report);
std::string render_csv(const Report& report);
std::string render_json(const Report& report);
std::string render_html(const Report& report);  // html_reporter.cpp

/// Writes `report` to `path` in `format` atomically (output_path.hpp: never a half-written file, never through a
/// link or over a device). The reason, with the OS's, when it cannot.
std::optional<std::string> write_report(const Report& report, Format format, const std::string& path);

}  // namespace dgx
