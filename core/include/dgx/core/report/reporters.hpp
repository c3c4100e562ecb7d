// Reporters: the same report as a terminal table or Markdown (text_reporter.cpp), JSON (dgx.results/1,
// json_reporter.cpp), CSV (csv_reporter.cpp), a self-contained HTML page with charts (html_reporter.cpp), JUnit XML
// for CI (junit_reporter.cpp) or the Prometheus text format (prometheus_reporter.cpp), all made of the tables and
// row groups of table.hpp.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "dgx/core/results/document.hpp"
#include "dgx/core/results/format.hpp"
#include "dgx/core/support/expected.hpp"

namespace dgx {

/// `width`: the columns the terminal table's notes and source lines wrap to (wrap.hpp stdout_width()); 0, and
/// every other format: no wrapping. A usage failure when the report cannot be written in `format` (prometheus: two
/// rows that would be one series).
Expected<std::string> render(const Report& report, Format format, std::size_t width = 0);
std::string render_table(const Report& report, std::size_t width = 0);
std::string render_markdown(const Report& report);
std::string render_csv(const Report& report);
std::string render_json(const Report& report);
std::string render_html(const Report& report);  // html_reporter.cpp
/// JUnit XML (the Jenkins/Ant format): one <testsuite> per row group, one <testcase> per row, failed or skipped
/// by its verdicts (docs/results-schema.md, "JUnit XML").
std::string render_junit(const Report& report);
/// The Prometheus text format 0.0.4 (docs/results-schema.md, "Prometheus"); a usage failure naming both rows when
/// two rows would make the same series.
Expected<std::string> render_prometheus(const Report& report);

/// Writes `report` to `path` in `format` atomically (output_path.hpp: never a half-written file, never through a
/// link or over a device). When it cannot: render()'s usage failure, or a run failure with the OS's reason.
std::optional<Failure> write_report(const Report& report, Format format, const std::string& path);

}  // namespace dgx
