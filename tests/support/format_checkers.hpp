// The checkers of the export formats, run as their users run them: `promtool check metrics` (Debian's prometheus
// package) on the Prometheus text format, and xmllint (libxml2-utils) with the JUnit schema the repository keeps
// (tests/core/report/data/junit.xsd, DGX_TEST_JUNIT_XSD). Both are found on PATH; a test without one prints
// "SKIPPED: <tool> is not installed" and returns, which CTest reports as a skip (the SKIP_REGULAR_EXPRESSION of
// its executable).
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include <dgx/sdk/text.hpp>

#include "process.hpp"
#include "temp_dir.hpp"

namespace dgx::testing {

/// The full path of `program` on PATH, or "".
inline std::string find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  for (const std::string& dir : sdk::text::split(path != nullptr ? path : "/usr/bin:/bin", ':')) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return {};
}

/// Whether `tool` is on PATH; when it is not, prints the line CTest reports as a skip.
inline bool have_tool(const std::string& tool, const char* package) {
  if (!find_on_path(tool).empty()) {
    return true;
  }
  std::printf("SKIPPED: %s is not installed (scripts/install-deps.sh installs Debian's %s)\n", tool.c_str(), package);
  return false;
}

/// `promtool check metrics < FILE` of `text`: exit 0 and nothing on stdout or stderr when the text parses and has no
/// lint problem (names, units, suffixes, HELP).
inline ProcessResult promtool_check(const std::string& text) {
  const TempDir dir;
  const auto file = dir.write("metrics.prom", text);
  return run_process("/bin/sh", {"-c", "exec \"$0\" check metrics < \"$1\"", find_on_path("promtool"), file.string()});
}

/// `xmllint --noout --schema junit.xsd FILE` of `xml`: exit 0 when it is well-formed and valid.
inline ProcessResult junit_validate(const std::string& xml) {
  const TempDir dir;
  const auto file = dir.write("report.xml", xml);
  return run_process(find_on_path("xmllint"), {"--noout", "--schema", DGX_TEST_JUNIT_XSD, file.string()});
}

}  // namespace dgx::testing
