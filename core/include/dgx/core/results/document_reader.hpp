// Reading a dgx.results/1 document back (docs/results-schema.md): what --baseline FILE.json and dgxhost compare
// hold a run against. The inverse of Report::to_json(), except that hidden flags are not in the JSON (every
// metric and field read back is visible).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "dgx/core/results/document.hpp"
#include "dgx/core/support/expected.hpp"
#include "dgx/core/support/json_cursor.hpp"

namespace dgx {

/// The largest results file dgxhost reads: far above any run's (a sweep of a million samples is about 30 MB),
/// far below what would exhaust a machine's memory.
inline constexpr std::size_t kMaxResultsFileBytes = std::size_t{1} << 30;

/// The report a parsed results document holds; throws json::ReadError naming the member that is missing or of
/// the wrong type by its JSON path, or a document of another schema.
Report read_results(const json::Cursor& doc);

/// Parses a results document; `origin` names it in errors. A usage failure (exit code 2) for text that is not
/// JSON or nests too deeply, another schema, a row without its required members, or a member of the wrong type,
/// named by its JSON path and what was expected ("$.results[0].metrics[\"time.median\"].value: expected a number
/// or null, found a string (\"fast\")").
Expected<Report> parse_results(std::string_view text, const std::string& origin);

/// Reads and parses a results file: a regular file of at most kMaxResultsFileBytes (a FIFO or a device such as
/// /dev/zero is refused at once).
Expected<Report> read_results_file(const std::string& path);

/// A short description of where a report's rows come from: "spin on host vm, 2025-01-01T00:00:00Z (git abc)".
std::string describe_run(const Report& report);

}  // namespace dgx
