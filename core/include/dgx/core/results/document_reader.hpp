// Reading a dgx.results/1 document back (docs/results-schema.md): what --baseline FILE.json and dgxhost compare
// hold a run against. The inverse of Report::to_json(), except that hidden flags are not in the JSON (every
// metric and field read back is visible).
#pragma once

#include <string>
#include <string_view>

#include "dgx/core/results/document.hpp"
#include "dgx/core/support/expected.hpp"

namespace dgx {

/// Parses a results document; `origin` names it in errors. A usage failure (exit code 2) for text that is not
/// JSON, another schema, or a row without its required members.
Expected<Report> parse_results(std::string_view text, const std::string& origin);

/// Reads and parses a results file.
Expected<Report> read_results_file(const std::string& path);

/// A short description of where a report's rows come from: "spin on host vm, 2025-01-01T00:00:00Z (git abc)".
std::string describe_run(const Report& report);

}  // namespace dgx
