// Private to the host: one invocation of dgxhost (its options, ranks, plugins and configuration) and the helpers
// every command uses to fail the same way on every rank. app.cpp dispatches the commands (run_command.cpp,
// platform_check_command.cpp, ...).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dgx/core/config/cli.hpp"
#include "dgx/core/config/layered_config.hpp"
#include "dgx/core/config/search_paths.hpp"
#include "dgx/core/distributed/comm.hpp"
#include "dgx/core/import/import.hpp"
#include "dgx/core/plugin/host_services.hpp"
#include "dgx/core/plugin/plugin_registry.hpp"
#include "dgx/core/report/reporters.hpp"
#include "dgx/core/support/expected.hpp"
#include "dgx/core/support/log.hpp"

namespace dgx {

// Everything one invocation needs, built once in run_app().
struct Session {
  CliOptions options;
  Logger logger;
  std::unique_ptr<HostComm> comm;
  std::vector<SearchPath> plugin_paths;
  std::vector<SearchPath> config_paths;
  std::unique_ptr<HostServices> plugin_services;  // for init() and probe(): no config, no results
  PluginRegistry registry;
  std::vector<ParamSpec> schema;  // the resolved configuration points into these
  std::vector<ConfigLayer> layers;

  [[nodiscard]] bool reports() const { return comm == nullptr || comm->ranks().rank == 0; }
};

template <typename T> std::optional<Failure> failure_of(const Expected<T>& e) {
  return e ? std::nullopt : std::optional<Failure>(e.error());
}

/// The format of stdout (--format).
Format stdout_format(const CliOptions& o);

/// Reports a failure and returns its exit code: the message on stderr and, with --format json, a results document
/// on stdout that carries it (so a script reading stdout always gets JSON).
int fail(const Session& s, const Failure& failure);

/// With several ranks, a failure on any rank ends every rank with the same code; rank 0 reports it, naming the
/// rank where it happened. nullopt when every rank may go on. Collective.
std::optional<int> agree_or_exit(const Session& s, const std::optional<Failure>& local);

/// Flushes stdout and checks that everything written to it got there (a closed fd 1, a full disk, a pipe whose
/// reader is gone): when not, an error on stderr (through `logger`, or directly when null) and exit code 1 instead
/// of 0, so that no command reports success without its output. Returns the exit code.
int finish_stdout(const Logger* logger, int code);

/// Whether --output can be written, before any work: a typo must not cost a run.
std::optional<Failure> check_outputs(const CliOptions& o);

/// Who this process is among the ranks, its communicator, and a logger that says so.
std::optional<Failure> join_ranks(Session& s);

/// The plugin and config search paths, the plugins on them and the preset files. A --plugin-dir that does not
/// exist is a usage error.
std::optional<Failure> discover_plugins(Session& s);

/// The folders searched for data files, highest priority first: the --config-dir folders (each must be a folder),
/// DGX_CONFIG_PATH, the install's configs. From now on the catalog (libs/catalog) searches them, as the plugins do
/// (discover_plugins hands them on); every command that reads the catalog calls this once. A usage failure names a
/// --config-dir that is missing or not a folder.
Expected<std::vector<SearchPath>> use_config_dirs(const std::vector<std::string>& config_dirs);

/// For the commands that read logs (import, verdict, store add): `s` gets a local communicator, a logger (warnings
/// and errors only when `quiet`) and the plugins of `plugin_dirs` (then DGX_PLUGIN_PATH and the install's), whose
/// catalogs search `config_dirs` first. A usage failure names a folder that is missing.
std::optional<Failure> open_plugins(Session& s, const std::vector<std::string>& plugin_dirs,
                                    const std::vector<std::string>& config_dirs, bool quiet);

/// The log importer of a session whose plugins are discovered (open_plugins or discover_plugins).
LogImporter log_importer(Session& s);

/// Which workload (--plugin, or the preset workload of a --config file: plugin_option.hpp) with which configuration.
/// `extra` is a layer above every other (a resumed run's configuration), or nullptr.
Expected<std::pair<Target, ConfigResolution>> resolve_run(Session& s, const ConfigLayer* extra = nullptr);

}  // namespace dgx
