// What the import tests share: the excerpts under data/<tool>/ (written in each tool's documented format), read
// through import_text with the catalog of the source tree.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "dgx/core/import/import.hpp"
#include "parsed_run.hpp"

namespace dgx::testing {

inline std::string import_data(const std::string& relative) {
  return std::string(DGX_TEST_IMPORT_DATA) + "/" + relative;
}

inline std::string read_import_data(const std::string& relative) {
  std::ifstream in(import_data(relative), std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "missing test data " << relative);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// import_text with the source tree's configs/ as the catalog (model and system names).
inline Expected<std::vector<ResultRow>> import_with_catalog(const std::string& text, const std::string& origin,
                                                            const std::vector<std::string>& sets = {}) {
  ::setenv("DGX_CONFIG_PATH", DGX_TEST_CONFIG_DIR, 1);
  return import_text(text, origin, sets);
}

/// import_text of a data file, with the source tree's configs/ as the catalog.
inline Expected<std::vector<ResultRow>> import_data_file(const std::string& relative,
                                                         const std::vector<std::string>& sets = {}) {
  return import_with_catalog(read_import_data(relative), relative, sets);
}

/// What a data file says before any --set (read_run), for the parsers' own tests.
inline Expected<detail::ParsedRun> read_data_run(const std::string& relative) {
  return detail::read_run(read_import_data(relative), relative);
}

inline double metric_value(const ResultRow& row, const char* name) {
  const Metric* m = row.find_metric(name);
  REQUIRE_MESSAGE(m != nullptr, "no metric " << name);
  return m->value;
}

inline std::string field_value(const ResultRow& row, const char* key) {
  const Field* f = row.find_field(key);
  return f == nullptr ? std::string() : f->value;
}

inline std::string failure_text(const Expected<std::vector<ResultRow>>& result) {
  REQUIRE_FALSE(result);
  CHECK(result.error().code == ExitCode::usage);
  return result.error().message;
}

}  // namespace dgx::testing
