// What the import tests share: the excerpts under data/<tool>/ (written in each tool's documented format), read
// through the host's LogImporter with the plugins of this build (their formats, libs/log-import) and the catalog of
// the source tree; the parsers' own tests read them through libs/log-import directly.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "dgx/core/distributed/comm.hpp"
#include "dgx/core/import/import.hpp"
#include "dgx/core/plugin/host_services.hpp"
#include "dgx/core/plugin/plugin_registry.hpp"
#include "launcher_output.hpp"  // core/src/import
#include "log_input.hpp"        // core/src/import
#include "parsed_run.hpp"       // libs/log-import/src

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

/// The host's importer with this build's plugins, the source tree's configs/ as the catalog; built once.
inline const LogImporter& importer() {
  struct Host {
    Logger logger;
    LocalComm comm;
    std::vector<SearchPath> config_paths{{DGX_TEST_CONFIG_DIR, "test", true}};
    std::unique_ptr<HostServices> services;
    PluginRegistry registry;
    std::unique_ptr<LogImporter> importer;
    Host() {
      ::setenv("DGX_CONFIG_PATH", DGX_TEST_CONFIG_DIR, 1);
      logger.configure(DGX_LOG_ERROR, false);
      services = std::make_unique<HostServices>(logger, comm, config_paths, "test");
      registry.discover({{DGX_TEST_PLUGIN_DIR, "test", true}}, {false, services->api(), false});
      importer = std::make_unique<LogImporter>(registry, logger, comm, config_paths);
    }
  };
  static Host host;
  return *host.importer;
}

/// import_text with this build's plugins and the source tree's catalog.
inline Expected<std::vector<ResultRow>> import_with_catalog(const std::string& text, const std::string& origin,
                                                            const std::vector<std::string>& sets = {}) {
  return importer().import_text(text, origin, sets);
}

/// import_text of a data file.
inline Expected<std::vector<ResultRow>> import_data_file(const std::string& relative,
                                                         const std::vector<std::string>& sets = {}) {
  return import_with_catalog(read_import_data(relative), relative, sets);
}

/// What a text says before any --set, as the parsers read it: launcher prefixes off and one rank's lines (as the
/// host hands it over), the world size the prefixes show, then the format that reads it (libs/log-import).
inline logs::Expected<logs::ParsedRun> read_run(std::string_view text, const std::string& origin) {
  detail::LogInput input{std::string(text)};
  detail::LauncherOutput log{input};
  if (auto data_line = logs::data_line_of(log.text())) {
    log.keep_one_rank([data_line](std::string_view line) { return data_line(line); });
  }
  auto run = logs::parse_any(log.text(), origin);
  if (run && log.world_size()) {
    const std::string key = run->kind == logs::RunKind::collective ? "world_size" : "gpus";
    if (!run->config.contains(key)) {
      run->set(key, static_cast<std::int64_t>(*log.world_size()), log.world_size_line());
    }
  }
  if (run) {
    if (auto problem = logs::check_plausible(*run, origin)) {
      return *problem;
    }
  }
  return run;
}

/// read_run of a data file, for the parsers' own tests.
inline logs::Expected<logs::ParsedRun> read_data_run(const std::string& relative) {
  return read_run(read_import_data(relative), relative);
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
