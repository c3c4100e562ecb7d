#include "dgx/core/app.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

// Writes `content` to `path` via a temporary file and a rename, so a reader never sees a half-written file.
std::optional<std::string> write_file_atomically(const std::string& path, const std::string& content) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return "cannot open " + temporary + " for writing";
    out << content;
    if (!out.flush()) return "cannot write " + temporary;
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) return "cannot rename " + temporary + " to " + path;
  return std::nullopt;
}

Format stdout_format(const CliOptions& o) { return format_from_name(o.format).value_or(Format::table); }

// Config layers ---------------------------------------------------------------------------------------------

struct Layers {
  std::vector<ConfigLayer> storage;  // preset, files, --set: lowest precedence first
  std::string preset_workload;       // from a --config file's [preset] table, when --plugin is not given
};

Expected<Layers> read_layers(const Session& s, const PresetInfo* preset) {
  Layers layers;
  if (preset != nullptr) {
    auto parsed = preset->file.empty() ? parse_toml_config(preset->config_toml, "preset '" + preset->name + "'", {})
                                       : load_toml_config(preset->file, "preset '" + preset->name + "'");
    if (!parsed) return parsed.error();
    layers.storage.push_back(std::move(parsed->layer));
  }
  for (const std::string& file : s.options.config_files) {
    auto parsed = load_toml_config(file, "config file");
    if (!parsed) return parsed.error();
    if (const json::Value* w = parsed->preset.find("workload"); w != nullptr && w->is_string())
      layers.preset_workload = w->as_string();
    layers.storage.push_back(std::move(parsed->layer));
  }
  ConfigLayer sets{"--set", {}};
  for (const std::string& argument : s.options.sets) {
    auto entry = parse_set_argument(argument);
    if (!entry) return entry.error();
    sets.entries.push_back(std::move(entry.value()));
  }
  layers.storage.push_back(std::move(sets));
  return layers;
}

// The workload's keys, and the runner's when it measures. A workload may declare a runner.* key itself to give
// it another default (a collective sweep wants fewer samples per size than a kernel).
std::vector<ParamSpec> schema_for(const WorkloadInfo& workload) {
  std::vector<ParamSpec> schema = workload.params;
  if (!workload.supports(DGX_MODE_MEASURE)) return schema;
  for (ParamSpec& p : RunnerSettings::params()) {
    const bool overridden =
        std::any_of(workload.params.begin(), workload.params.end(), [&](const ParamSpec& w) { return w.key == p.key; });
    if (!overridden) schema.push_back(std::move(p));
  }
  return schema;
}

// One-letter options (-b 8) become config entries of the workload key with that alias.
Expected<std::vector<ConfigEntry>> alias_entries(const CliOptions& options, const WorkloadInfo& workload) {
  std::vector<ConfigEntry> entries;
  for (const auto& [letter, value] : options.aliases) {
    const auto it = std::find_if(workload.params.begin(), workload.params.end(),
                                 [&](const ParamSpec& p) { return p.alias == letter; });
    if (it == workload.params.end()) {
      std::vector<std::string> known;
      for (const ParamSpec& p : workload.params)
        if (!p.alias.empty()) known.push_back("-" + p.alias + " (" + p.key + ")");
      return Failure{ExitCode::usage, "unknown option -" + letter + " for workload " + workload.name +
                                          (known.empty() ? std::string(" (it has no one-letter options)")
                                                         : "; its one-letter options: " + text::join(known, ", ")) +
                                          " (dgxhost --help lists dgxhost's own options)"};
    }
    auto entry = parse_set_argument(it->key + "=" + value);
    if (!entry) return Failure{ExitCode::usage, "-" + letter + " " + value + ": " + entry.error().message};
    entry->where = {"-" + letter, {}, 0, 0, "-" + letter + " " + value};
    entries.push_back(std::move(entry.value()));
  }
  return entries;
}

// Mode ----------------------------------------------------------------------------------------------------------

Expected<dgx_mode> choose_mode(const Session& s, const WorkloadInfo& w, const dgx_host_api* host) {
  const std::string& requested = s.options.mode;
  const std::string who = w.plugin->name + ":" + w.name;
  auto unsupported = [&](const std::string& mode) {
    return Failure{ExitCode::usage, who + " has no " + mode + " mode (it supports: " + w.mode_list() + ")"};
  };
  if (requested == "measure") {
    if (!w.supports(DGX_MODE_MEASURE)) return unsupported("measure");
    if (auto problem = can_measure(w, host)) return *problem;
    return DGX_MODE_MEASURE;
  }
  if (requested == "project")
    return w.supports(DGX_MODE_PROJECT) ? Expected<dgx_mode>(DGX_MODE_PROJECT) : unsupported("project");
  if (requested == "explore")
    return w.supports(DGX_MODE_EXPLORE) ? Expected<dgx_mode>(DGX_MODE_EXPLORE) : unsupported("explore");

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

// Context block -------------------------------------------------------------------------------------------------

// Every rank's host and GPUs, gathered on all ranks (collective): where a multi-node run actually ran.
json::Array gather_rank_facts(HostComm& comm, const std::string& gpu_summary) {
  constexpr std::size_t kSlot = 512;  // bytes of JSON per rank; longer facts are cut
  json::Object mine;
  mine.set("rank", comm.ranks().rank);
  mine.set("local_rank", comm.ranks().local_rank);
  const json::Object host = host_info();
  if (const json::Value* hostname = host.find("hostname")) mine.set("hostname", *hostname);
  mine.set("gpus", gpu_summary);
  std::string text = json::write(mine, 0);
  if (text.size() >= kSlot) text = "{\"rank\": " + std::to_string(comm.ranks().rank) + "}";
  text.resize(kSlot, '\0');
  std::string all(kSlot * static_cast<std::size_t>(comm.ranks().world_size), '\0');
  const dgx_comm_api* api = comm.api();
  json::Array facts;
  if (api->all_gather(api->ctx, text.data(), all.data(), kSlot, DGX_DTYPE_UINT8, nullptr) != DGX_OK) return facts;
  for (int rank = 0; rank < comm.ranks().world_size; ++rank) {
    const char* slot = all.data() + static_cast<std::size_t>(rank) * kSlot;
    try {
      facts.push_back(json::parse(std::string(slot, strnlen(slot, kSlot))));
    } catch (const std::exception&) {
      facts.emplace_back();  // null: this rank's facts did not parse
    }
  }
  return facts;
}

// `gather` collects every rank's facts (a collective): false when other ranks are not here to take part.
json::Object make_context(const Session& s, const Target& t, const ResolvedConfig& config, dgx_mode mode,
                          bool gather = true) {
  json::Object c;
  json::Object self;
  self.set("version", build_info::version());
  self.set("git_revision", build_info::git_revision());
  self.set("build_type", build_info::build_type());
  self.set("abi", abi_version_string(kHostAbiMin) + "-" + abi_version_string(kHostAbiMax));
  c.set("dgxhost", std::move(self));
  c.set("time", utc_timestamp());
  c.set("host", host_info());
  const DeviceReport devices = probe_devices(s.registry, s.plugin_services->api(), s.logger);
  c.set("gpus", devices.gpus_json());
  c.set("gpu_summary", devices.summary());
  c.set("software", devices.software);
  const RankInfo& r = s.comm->ranks();
  json::Object ranks;
  ranks.set("rank", r.rank);
  ranks.set("world_size", r.world_size);
  ranks.set("local_rank", r.local_rank);
  ranks.set("launcher", r.launcher);
  ranks.set("transport", s.comm->name());
  c.set("ranks", std::move(ranks));
  if (r.world_size > 1 && gather) c.set("nodes", gather_rank_facts(*s.comm, devices.summary()));
  c.set("argv", json::Array(s.options.argv.begin(), s.options.argv.end()));
  json::Object plugin;
  plugin.set("name", t.plugin->name);
  plugin.set("version", t.plugin->version);
  plugin.set("vendor", t.plugin->vendor);
  plugin.set("abi", abi_version_string(t.plugin->abi_version));
  plugin.set("file", t.plugin->file.string());
  c.set("plugin", std::move(plugin));
  c.set("workload", t.workload->name);
  c.set("preset", t.preset != nullptr ? json::Value(t.preset->name) : json::Value());
  c.set("requested_mode", s.options.mode);
  c.set("mode", std::string(mode_name(mode)));
  c.set("config", config.to_json());
  c.set("config_sources", config.sources_to_json());
  const auto overrides = config.overrides();
  c.set("config_overrides", json::Array(overrides.begin(), overrides.end()));
  return c;
}

// Commands ------------------------------------------------------------------------------------------------------

int emit_report(const Session& s, Report& report) {
  if (s.comm->ranks().rank != 0) return report.exit_code;  // rank 0 reports for everyone
  std::cout << render(report, stdout_format(s.options)) << std::flush;
  if (!s.options.output.empty()) {
    const Format format = format_from_path(s.options.output).value_or(stdout_format(s.options));
    if (auto problem = write_file_atomically(s.options.output, render(report, format))) {
      s.logger.error("--output " + s.options.output + ": " + *problem);
      if (report.exit_code == 0) report.exit_code = to_int(ExitCode::run_failed);
    }
  }
  return report.exit_code;
}

int run_workload(Session& s, const Target& target, const ResolvedConfig& config) {
  const WorkloadInfo& w = *target.workload;
  HostServices services(s.logger, *s.comm, s.config_paths, w.plugin->name);
  services.bind_config(&config);
  auto mode = choose_mode(s, w, services.api());
  if (auto code = agree_or_exit(s, failure_of(mode))) return *code;

  Report report;
  services.bind_report(&report, w.name, w.plugin->name);
  CallResult outcome;
  {
    auto instance = WorkloadInstance::create(w, services.api());
    if (auto code = agree_or_exit(s, failure_of(instance))) return *code;
    if (mode.value() == DGX_MODE_MEASURE) {
      auto settings = RunnerSettings::from(config);
      if (!settings) return fail(s, settings.error());
      json::Object row_config = config.to_json();
      json::Object workload_only;
      for (const auto& [key, value] : row_config)
        if (!text::starts_with(key, "runner.")) workload_only.set(key, value);
      outcome = measure(instance.value(), settings.value(), services, *s.comm, workload_only, report);
    } else {
      outcome = instance->project(mode.value());
    }
  }  // destroy the instance before reporting: its teardown may still log
  if (outcome && s.comm->ranks().world_size > 1) {
    // Other ranks may be waiting in a collective for this one: report what there is, then end every rank.
    s.logger.error(outcome->message);
    report.exit_code = to_int(outcome->code);
    report.error = "rank " + std::to_string(s.comm->ranks().rank) + ": " + outcome->message;
    if (s.comm->ranks().rank == 0) {
      report.context = make_context(s, target, config, mode.value(), false);
      emit_report(s, report);
    }
    s.comm->abort(report.exit_code);
  }
  report.context = make_context(s, target, config, mode.value());
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
  auto early_layers = read_layers(s, nullptr);
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

  auto layers = read_layers(s, target->preset);
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

}  // namespace

int run_app(int argc, const char* const* argv) {
  if (argc >= 2 && std::string(argv[1]) == "launch") return run_launch(argc - 1, argv + 1);
  Session s;
  auto options = parse_cli(argc, argv);
  if (!options) {
    s.logger.error(options.error().message);
    return to_int(options.error().code);
  }
  s.options = std::move(options.value());
  if (s.options.help) {
    std::cout << cli_help();
    return 0;
  }
  if (s.options.version) {
    std::cout << "dgxhost " << build_info::version() << " (git " << build_info::git_revision() << ", "
              << build_info::build_type() << "), plugin ABI " << abi_version_string(kHostAbiMin) << "-"
              << abi_version_string(kHostAbiMax) << "\n";
    return 0;
  }
  auto ranks = detect_ranks([](const char* name) -> const char* { return std::getenv(name); });
  if (!ranks) return fail(s, ranks.error());
  auto comm = make_host_comm(ranks.value());
  if (!comm) return fail(s, comm.error());
  s.comm = std::move(comm.value());
  const RankInfo& me = s.comm->ranks();
  if (me.world_size > 1) s.logger.set_rank_label("rank " + std::to_string(me.rank));
  s.logger.configure(s.options.quiet         ? DGX_LOG_WARNING
                     : s.options.verbose > 0 ? DGX_LOG_DEBUG
                                             : DGX_LOG_INFO,
                     me.rank != 0);
  install_cancellation_handlers();

  const auto exe_dir = executable_directory();
  s.plugin_paths = plugin_search_paths(s.options.plugin_dirs, std::getenv("DGX_PLUGIN_PATH"), exe_dir);
  s.config_paths = config_search_paths(s.options.config_dirs, std::getenv("DGX_CONFIG_PATH"), exe_dir);
  s.plugin_services = std::make_unique<HostServices>(s.logger, *s.comm, s.config_paths, "dgxhost");
  s.registry.discover(s.plugin_paths, {s.options.allow_insecure_plugins, s.plugin_services->api()});
  s.registry.add_preset_files(s.config_paths);
  for (const std::string& warning : s.registry.warnings()) s.logger.warn(warning);

  if (s.options.list) {
    if (me.rank != 0) return 0;
    if (stdout_format(s.options) == Format::json)
      std::cout << json::write(list_json(s.registry, s.plugin_paths)) << "\n";
    else
      std::cout << list_text(s.registry, s.plugin_paths);
    return 0;
  }
  auto resolved = resolve_run(s);
  if (auto code = agree_or_exit(s, failure_of(resolved))) return *code;
  const auto& [target, resolution] = resolved.value();
  if (s.options.describe) {
    if (me.rank == 0 && stdout_format(s.options) == Format::json)
      std::cout << json::write(describe_json(target, resolution.config)) << "\n";
    else if (me.rank == 0)
      std::cout << describe_text(target, resolution.config);
    return 0;
  }
  return run_workload(s, target, resolution.config);
}

}  // namespace dgx
