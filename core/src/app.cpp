#include "dgx/core/app.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "dgx/core/build_info.hpp"
#include "dgx/core/cancellation.hpp"
#include "dgx/core/cli.hpp"
#include "dgx/core/context.hpp"
#include "dgx/core/host_services.hpp"
#include "dgx/core/launch.hpp"
#include "dgx/core/launcher.hpp"
#include "dgx/core/listing.hpp"
#include "dgx/core/plugin_registry.hpp"
#include "dgx/core/report.hpp"
#include "dgx/core/run_config.hpp"
#include "dgx/core/runner.hpp"
#include "dgx/core/text.hpp"
#include "dgx/core/workload_instance.hpp"

namespace dgx {

namespace {

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
};

int fail(const Session& s, const Failure& failure) {
  s.logger.error(failure.message);
  return to_int(failure.code);
}

// With several ranks, a failure on any rank before the workload runs ends every rank with the same code;
// rank 0 reports it, naming the rank where it happened. nullopt when every rank may go on.
std::optional<int> agree_or_exit(const Session& s, const std::optional<Failure>& local) {
  const std::optional<Failure> agreed = s.comm->agree(local);
  if (!agreed) return std::nullopt;
  if (s.comm->ranks().world_size == 1 || s.comm->ranks().rank == 0) s.logger.error(agreed->message);
  return to_int(agreed->code);
}

template <typename T> std::optional<Failure> failure_of(const Expected<T>& e) {
  return e ? std::nullopt : std::optional<Failure>(e.error());
}

Format stdout_format(const CliOptions& o) { return format_from_name(o.format).value_or(Format::table); }

// Mode ----------------------------------------------------------------------------------------------------------

Expected<dgx_mode> choose_mode(const Session& s, const WorkloadInfo& w, const dgx_host_api* host) {
  const std::string who = w.plugin->name + ":" + w.name;
  auto explicit_mode = [&](dgx_mode mode) -> Expected<dgx_mode> {
    if (!w.supports(mode))
      return Failure{ExitCode::usage,
                     who + " has no " + std::string(mode_name(mode)) + " mode (it supports: " + w.mode_list() + ")"};
    if (mode == DGX_MODE_MEASURE)
      if (auto problem = can_measure(w, host)) return *problem;
    return mode;
  };
  switch (s.options.mode) {
  case RequestedMode::measure: return explicit_mode(DGX_MODE_MEASURE);
  case RequestedMode::project: return explicit_mode(DGX_MODE_PROJECT);
  case RequestedMode::explore: return explicit_mode(DGX_MODE_EXPLORE);
  case RequestedMode::automatic: break;
  }
  // auto: measure when the workload can run here, otherwise its default non-timed mode.
  std::optional<Failure> measure_problem;
  if (w.supports(DGX_MODE_MEASURE)) {
    measure_problem = can_measure(w, host);
    if (!measure_problem) return DGX_MODE_MEASURE;
  }
  const dgx_mode fallback = w.supports(DGX_MODE_EXPLORE) ? DGX_MODE_EXPLORE : DGX_MODE_PROJECT;
  if (!w.supports(fallback)) return *measure_problem;
  if (measure_problem)
    s.logger.info(measure_problem->message + "; running its " + std::string(mode_name(fallback)) +
                  " mode instead (--mode measure requires a measurement)");
  return fallback;
}

ContextSources context_sources(const Session& s) { return {s.registry, s.plugin_services->api(), *s.comm, s.logger}; }

// Commands ------------------------------------------------------------------------------------------------------

int emit_report(const Session& s, Report& report) {
  if (s.comm->ranks().rank != 0) return report.exit_code;  // rank 0 reports for everyone
  std::cout << render(report, stdout_format(s.options)) << std::flush;
  if (!s.options.output.empty()) {
    const Format format = format_from_path(s.options.output).value_or(stdout_format(s.options));
    if (auto problem = write_report(report, format, s.options.output)) {
      s.logger.error("--output " + s.options.output + ": " + *problem);
      if (report.exit_code == 0) report.exit_code = to_int(ExitCode::run_failed);
    }
  }
  return report.exit_code;
}

// Creates the instance and runs the chosen mode; nullopt when every rank may report, else the exit code.
std::optional<int> run_mode(Session& s, HostServices& services, const WorkloadInfo& w, dgx_mode mode,
                            const ResolvedConfig& config, Report& report, CallResult& outcome) {
  auto instance = WorkloadInstance::create(w, services.api());
  if (auto code = agree_or_exit(s, failure_of(instance))) return code;
  if (mode != DGX_MODE_MEASURE) {
    outcome = instance->project(mode);
    return std::nullopt;
  }
  auto settings = RunnerSettings::from(config);
  if (!settings) return fail(s, settings.error());
  outcome = measure(instance.value(), settings.value(), services, *s.comm, workload_config(config), report);
  return std::nullopt;
}

// A failure on one of several ranks: other ranks may be waiting in a collective for this one, so rank 0 reports
// what there is and every rank ends at once (HostComm::abort does not return).
void abort_ranks(Session& s, const Failure& failure, Report& report, const RunFacts& facts) {
  s.logger.error(failure.message);
  report.exit_code = to_int(failure.code);
  report.error = "rank " + std::to_string(s.comm->ranks().rank) + ": " + failure.message;
  if (s.comm->ranks().rank == 0) {
    report.context = run_context(context_sources(s), facts, false);
    emit_report(s, report);
  }
  s.comm->abort(report.exit_code);
}

int run_workload(Session& s, const Target& target, const ResolvedConfig& config) {
  const WorkloadInfo& w = *target.workload;
  HostServices services(s.logger, *s.comm, s.config_paths, w.plugin->name);
  services.bind_config(&config);
  auto mode = choose_mode(s, w, services.api());
  if (auto code = agree_or_exit(s, failure_of(mode))) return *code;

  Report report;
  services.bind_report(&report, w.name, w.plugin->name, workload_config(config));
  CallResult outcome;
  // The instance is destroyed inside run_mode, before reporting: its teardown may still log.
  if (auto code = run_mode(s, services, w, mode.value(), config, report, outcome)) return *code;
  if (auto refused = services.take_refusal()) outcome = refused;  // whatever the plugin made of the failed call
  const RunFacts facts{target, config, to_string(s.options.mode), mode.value(), s.options.argv};
  if (outcome && s.comm->ranks().world_size > 1) abort_ranks(s, *outcome, report, facts);
  report.context = run_context(context_sources(s), facts);
  if (outcome) {
    report.exit_code = to_int(outcome->code);
    report.error = outcome->message;
    s.logger.error(outcome->message);
  }
  return emit_report(s, report);
}

// Which workload (--plugin, or the preset workload of a --config file) with which configuration.
Expected<std::pair<Target, ConfigResolution>> resolve_run(Session& s) {
  std::string name = s.options.plugin;
  auto early_layers = read_layers(s.options, nullptr);
  if (!early_layers) return early_layers.error();
  if (name.empty()) name = early_layers->preset_workload;
  if (name.empty())
    return Failure{ExitCode::usage,
                   "nothing to run: give --plugin NAME (dgxhost --list shows the choices, --help the options)"};
  if (s.registry.plugins().empty()) {
    std::string message = "no usable plugin found on the plugin search path";
    for (const PluginRejection& r : s.registry.rejections()) message += "\n  rejected " + r.line();
    return Failure{ExitCode::no_plugin, message};
  }
  auto target = s.registry.resolve(name);
  if (!target) return target.error();

  auto layers = read_layers(s.options, target->preset);
  if (!layers) return layers.error();
  auto aliases = alias_entries(s.options, *target->workload);
  if (!aliases) return aliases.error();
  ConfigLayer& sets = layers->storage.back();  // aliases go first, so an explicit --set of the same key wins
  sets.entries.insert(sets.entries.begin(), aliases->begin(), aliases->end());
  s.schema = schema_for(*target->workload);
  s.layers = std::move(layers->storage);
  std::vector<const ConfigLayer*> layer_pointers;
  for (const ConfigLayer& l : s.layers) layer_pointers.push_back(&l);
  const std::string hint = "dgxhost --plugin " + name + " --describe lists the keys";
  ConfigResolution resolution = resolve_config(s.schema, layer_pointers, hint);
  if (!resolution.errors.empty()) {
    if (s.options.describe && s.comm->ranks().rank == 0) std::cout << describe_text(target.value(), resolution.config);
    return Failure{ExitCode::usage, text::join(resolution.errors, "\n")};
  }
  return std::pair{target.value(), std::move(resolution)};
}

int print_version() {
  std::cout << "dgxhost " << build_info::version() << " (git " << build_info::git_revision() << ", "
            << build_info::build_type() << "), plugin ABI " << abi_version_string(kHostAbiMin) << "-"
            << abi_version_string(kHostAbiMax) << "\n";
  return 0;
}

// Who this process is among the ranks, its communicator, and a logger that says so.
std::optional<Failure> join_ranks(Session& s) {
  auto ranks = detect_ranks([](const char* name) -> const char* { return std::getenv(name); });
  if (!ranks) return ranks.error();
  auto comm = make_host_comm(ranks.value());
  if (!comm) return comm.error();
  s.comm = std::move(comm.value());
  const RankInfo& me = s.comm->ranks();
  if (me.world_size > 1) s.logger.set_rank_label("rank " + std::to_string(me.rank));
  s.logger.configure(s.options.quiet         ? DGX_LOG_WARNING
                     : s.options.verbose > 0 ? DGX_LOG_DEBUG
                                             : DGX_LOG_INFO,
                     me.rank != 0);
  return std::nullopt;
}

void discover_plugins(Session& s) {
  const auto exe_dir = executable_directory();
  s.plugin_paths = plugin_search_paths(s.options.plugin_dirs, std::getenv("DGX_PLUGIN_PATH"), exe_dir);
  s.config_paths = config_search_paths(s.options.config_dirs, std::getenv("DGX_CONFIG_PATH"), exe_dir);
  s.plugin_services = std::make_unique<HostServices>(s.logger, *s.comm, s.config_paths, "dgxhost");
  s.registry.discover(s.plugin_paths, {s.options.allow_insecure_plugins, s.plugin_services->api()});
  s.registry.add_preset_files(s.config_paths);
  for (const std::string& warning : s.registry.warnings()) s.logger.warn(warning);
}

int list(const Session& s) {
  if (s.comm->ranks().rank != 0) return 0;
  if (stdout_format(s.options) == Format::json)
    std::cout << json::write(list_json(s.registry, s.plugin_paths)) << "\n";
  else
    std::cout << list_text(s.registry, s.plugin_paths);
  return 0;
}

int describe(const Session& s, const Target& target, const ResolvedConfig& config) {
  if (s.comm->ranks().rank != 0) return 0;
  if (stdout_format(s.options) == Format::json)
    std::cout << json::write(describe_json(target, config)) << "\n";
  else
    std::cout << describe_text(target, config);
  return 0;
}

}  // namespace

int run_app(int argc, const char* const* argv) {
  if (argc >= 2 && std::string(argv[1]) == "launch") return run_launch(argc - 1, argv + 1);
  Session s;
  auto options = parse_cli(argc, argv);
  if (!options) return fail(s, options.error());
  s.options = std::move(options.value());
  if (s.options.help) {
    std::cout << cli_help();
    return 0;
  }
  if (s.options.version) return print_version();
  if (auto failure = join_ranks(s)) return fail(s, *failure);
  install_cancellation_handlers();
  discover_plugins(s);
  if (s.options.list) return list(s);

  auto resolved = resolve_run(s);
  if (auto code = agree_or_exit(s, failure_of(resolved))) return *code;
  const auto& [target, resolution] = resolved.value();
  if (s.options.describe) return describe(s, target, resolution.config);
  return run_workload(s, target, resolution.config);
}

}  // namespace dgx
