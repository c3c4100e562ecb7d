#include "session.hpp"

#include "dgx/catalog/catalog_files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "dgx/core/app/plugin_option.hpp"
#include "dgx/core/distributed/rank_environment.hpp"
#include "dgx/core/plugin/crash_report.hpp"
#include "dgx/core/report/listing.hpp"
#include "dgx/core/results/output_path.hpp"
#include "dgx/core/run/context.hpp"
#include "dgx/core/run/run_layers.hpp"
#include "dgx/core/support/files.hpp"
#include "dgx/core/support/text.hpp"
#include "dgx/core/verdict/baseline.hpp"

namespace dgx {

Format stdout_format(const CliOptions& o) { return format_from_name(o.format).value_or(Format::table); }

namespace {

// The formats whose stdout is one document for a program (a CI job, node_exporter) get it even for a failure found
// before the run: its status, and for JUnit an <error>.
void print_error_document(const Session& s, const Failure& failure) {
  const Format format = stdout_format(s.options);
  if (!s.reports() || (format != Format::json && format != Format::junit && format != Format::prometheus)) {
    return;
  }
  Report report;
  report.exit_code = to_int(failure.code);
  report.error = failure.message;
  report.context = failure_context(s.options.argv);
  if (const auto text = render(report, format)) {
    std::cout << text.value() << std::flush;
  }
}

}  // namespace

int fail(const Session& s, const Failure& failure) {
  s.logger.error(failure.message);
  print_error_document(s, failure);
  return to_int(failure.code);
}

std::optional<int> agree_or_exit(const Session& s, const std::optional<Failure>& local) {
  const std::optional<Failure> agreed = s.comm->agree(local);
  if (!agreed) {
    return std::nullopt;
  }
  if (s.reports()) {
    s.logger.error(agreed->message);
    print_error_document(s, *agreed);
  }
  return to_int(agreed->code);
}

int finish_stdout(const Logger* logger, int code) {
  errno = 0;
  std::cout.flush();
  int error = errno;
  if (std::fflush(stdout) != 0) {
    error = errno;
  }
  if (!std::cout.fail() && std::ferror(stdout) == 0) {
    return code;
  }
  if (error == 0 && ::write(STDOUT_FILENO, "", 0) < 0) {  // the failed write's errno is gone; ask again
    error = errno;
  }
  const std::string message =
      "cannot write to stdout: " + (error != 0 ? os_reason(error) : std::string("the write failed")) +
      (code == 0 ? "; what this command printed is incomplete (exit code 1)" : "");
  if (logger != nullptr) {
    logger->error(message);
  } else {
    std::cerr << "dgxhost: error: " << message << "\n";
  }
  return code == 0 ? to_int(ExitCode::run_failed) : code;
}

std::optional<Failure> check_outputs(const CliOptions& o) {
  if (o.list || o.describe) {
    return std::nullopt;
  }
  if (auto problem = check_emit_folder(o.emit)) {
    return problem;
  }
  if (o.output.empty()) {
    return std::nullopt;
  }
  if (auto format = output_format(o.output, stdout_format(o)); !format) {
    return format.error();
  }
  return check_output_path(o.output);
}

std::optional<Failure> join_ranks(Session& s) {
  auto ranks = detect_ranks([](const char* name) -> const char* { return std::getenv(name); });
  if (!ranks) {
    return ranks.error();
  }
  auto comm = make_host_comm(ranks.value());
  if (!comm) {
    return comm.error();
  }
  s.comm = std::move(comm.value());
  const RankInfo& me = s.comm->ranks();
  if (me.world_size > 1) {
    s.logger.set_rank_label("rank " + std::to_string(me.rank));
    set_crash_rank_label("rank " + std::to_string(me.rank));
  }
  s.logger.configure(s.options.quiet         ? DGX_LOG_WARNING
                     : s.options.verbose > 0 ? DGX_LOG_DEBUG
                                             : DGX_LOG_INFO,
                     me.rank != 0);
  return std::nullopt;
}

namespace {

// A directory the user named (--plugin-dir, --config-dir) must exist: a typo would otherwise run without it.
std::optional<Failure> check_named_dirs(const std::vector<std::string>& dirs, const char* option, bool files_too) {
  for (const std::string& dir : dirs) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0) {
      return Failure{ExitCode::usage, std::string(option) + " " + dir + ": " + os_reason(errno)};
    }
    if (!S_ISDIR(st.st_mode) && !(files_too && S_ISREG(st.st_mode))) {
      return Failure{ExitCode::usage,
                     std::string(option) + " " + dir + " is " + file_kind(st.st_mode) +
                         (files_too ? " (expected a directory or a plugin file)" : " (expected a directory)")};
    }
  }
  return std::nullopt;
}

}  // namespace

Expected<std::vector<SearchPath>> use_config_dirs(const std::vector<std::string>& config_dirs) {
  if (auto failure = check_named_dirs(config_dirs, "--config-dir", false)) {
    return *failure;
  }
  std::vector<SearchPath> paths =
      config_search_paths(config_dirs, std::getenv("DGX_CONFIG_PATH"), executable_directory());
  std::vector<catalog::SearchDir> dirs;
  for (const SearchPath& p : paths) {
    dirs.push_back(catalog::SearchDir{.path = p.path, .origin = p.origin});
  }
  catalog::set_search_dirs(std::move(dirs));
  return paths;
}

std::optional<Failure> discover_plugins(Session& s) {
  if (auto failure = check_named_dirs(s.options.plugin_dirs, "--plugin-dir", true)) {
    return failure;
  }
  auto config_paths = use_config_dirs(s.options.config_dirs);
  if (!config_paths) {
    return config_paths.error();
  }
  s.config_paths = std::move(config_paths).value();
  s.plugin_paths = plugin_search_paths(s.options.plugin_dirs, std::getenv("DGX_PLUGIN_PATH"), executable_directory());
  s.plugin_services = std::make_unique<HostServices>(s.logger, *s.comm, s.config_paths, "dgxhost");
  s.registry.discover(s.plugin_paths, {s.options.allow_insecure_plugins, s.plugin_services->api()});
  s.registry.add_preset_files(s.config_paths);
  for (const std::string& warning : s.registry.warnings()) {
    s.logger.warn(warning);
  }
  return std::nullopt;
}

std::optional<Failure> open_plugins(Session& s, const std::vector<std::string>& plugin_dirs,
                                    const std::vector<std::string>& config_dirs, bool quiet) {
  s.options.plugin_dirs = plugin_dirs;
  s.options.config_dirs = config_dirs;
  s.logger.configure(quiet ? DGX_LOG_WARNING : DGX_LOG_INFO, false);
  s.comm = std::make_unique<LocalComm>();
  return discover_plugins(s);
}

LogImporter log_importer(Session& s) { return LogImporter(s.registry, s.logger, *s.comm, s.config_paths); }

Expected<std::pair<Target, ConfigResolution>> resolve_run(Session& s, const ConfigLayer* extra) {
  auto early_layers = read_layers(s.options, nullptr);  // a --config file may name the workload (its [preset])
  if (!early_layers) {
    return early_layers.error();
  }
  auto target = resolve_plugin_option(s.registry, s.options.plugin, early_layers->preset_workload);
  if (!target) {
    return target.error();
  }

  auto layers = read_layers(s.options, target->preset);
  if (!layers) {
    return layers.error();
  }
  auto aliases = alias_entries(s.options, *target->workload);
  if (!aliases) {
    return aliases.error();
  }
  ConfigLayer& sets = layers->storage.back();  // aliases go first, so an explicit --set of the same key wins
  sets.entries.insert(sets.entries.begin(), aliases->begin(), aliases->end());
  if (extra != nullptr) {
    layers->storage.push_back(*extra);
  }
  s.schema = schema_for(*target->workload);
  if (!s.options.baseline.empty()) {
    for (ParamSpec& p : verdict_params()) {
      s.schema.push_back(std::move(p));  // verdict.* with --baseline
    }
  }
  s.layers = std::move(layers->storage);
  std::vector<const ConfigLayer*> layer_pointers;
  for (const ConfigLayer& l : s.layers) {
    layer_pointers.push_back(&l);
  }
  const std::string name = s.options.plugin.empty() ? early_layers->preset_workload : s.options.plugin;
  const std::string hint = "dgxhost --plugin " + name + " --describe lists the keys";
  ConfigResolution resolution = resolve_config(s.schema, layer_pointers, hint);
  if (!resolution.errors.empty()) {
    if (s.options.describe && s.reports()) {
      std::cout << describe_text(target.value(), resolution.config);
    }
    return Failure{ExitCode::usage, join_errors(resolution.errors)};
  }
  return std::pair{target.value(), std::move(resolution)};
}

}  // namespace dgx
