#include "run_command.hpp"

#include <chrono>
#include <iostream>
#include <thread>

#include "dgx/core/app/platform_check.hpp"
#include "dgx/core/app/plugin_option.hpp"
#include "dgx/core/distributed/comm.hpp"
#include "dgx/core/measure/runner.hpp"
#include "dgx/core/plugin/cancellation.hpp"
#include "dgx/core/plugin/workload_instance.hpp"
#include "dgx/core/report/listing.hpp"
#include "dgx/core/report/wrap.hpp"
#include "dgx/core/results/output_path.hpp"
#include "dgx/core/run/context.hpp"
#include "dgx/core/run/journal.hpp"
#include "dgx/core/run/run_folder.hpp"
#include "dgx/core/support/text.hpp"
#include "dgx/core/verdict/baseline.hpp"
#include "store_command.hpp"

namespace dgx {

namespace {

// Mode ----------------------------------------------------------------------------------------------------------

Expected<dgx_mode> choose_mode(const Session& s, const WorkloadInfo& w, const dgx_host_api* host) {
  const std::string who = w.plugin->name + ":" + w.name;
  auto explicit_mode = [&](dgx_mode mode) -> Expected<dgx_mode> {
    if (!w.supports(mode)) {
      return Failure{ExitCode::usage,
                     who + " has no " + std::string(mode_name(mode)) + " mode (it supports: " + w.mode_list() + ")"};
    }
    if (mode == DGX_MODE_MEASURE) {
      if (auto problem = can_measure(w, host)) {
        return *problem;
      }
    }
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
    if (!measure_problem) {
      return DGX_MODE_MEASURE;
    }
  }
  const dgx_mode fallback = w.supports(DGX_MODE_EXPLORE) ? DGX_MODE_EXPLORE : DGX_MODE_PROJECT;
  if (!w.supports(fallback)) {
    return *measure_problem;
  }
  if (measure_problem && measure_problem->code == ExitCode::no_device) {
    // The usual case on a laptop or a CI runner: say what happens, not the CUDA runtime's words for it (which read
    // as a broken driver); those go to -v and to the run's log.
    s.logger.info("no GPU here: " + w.plugin->name + ":" + w.name + " projects instead (its " +
                  std::string(mode_name(fallback)) + " mode; --mode measure requires a GPU, -v says why)");
    s.logger.debug(measure_problem->message);
    s.logger.info_to_file(measure_problem->message);
  } else if (measure_problem) {
    s.logger.info(measure_problem->message + "; running its " + std::string(mode_name(fallback)) +
                  " mode instead (--mode measure requires a measurement)");
  }
  return fallback;
}

ContextSources context_sources(const Session& s) { return {s.registry, s.plugin_services->api(), *s.comm, s.logger}; }

// Commands ------------------------------------------------------------------------------------------------------

// Creates the instance and runs the chosen mode; nullopt when every rank may report, else the exit code.
std::optional<int> run_mode(Session& s, HostServices& services, const WorkloadInfo& w, dgx_mode mode,
                            const ResolvedConfig& config, Report& report, CallResult& outcome, RunFolder* folder) {
  auto instance = WorkloadInstance::create(w, services.api());
  if (auto code = agree_or_exit(s, failure_of(instance))) {
    return code;
  }
  if (mode != DGX_MODE_MEASURE) {
    outcome = instance->project(mode);
    return std::nullopt;
  }
  auto settings = RunnerSettings::from(config);
  if (!settings) {
    return fail(s, settings.error());
  }
  ProgressLog progress(s.logger);  // without a run folder, rank 0 still prints a line per finished case
  CaseLog* log = folder != nullptr ? static_cast<CaseLog*>(folder) : s.comm->ranks().rank == 0 ? &progress : nullptr;
  outcome = measure(instance.value(), settings.value(), services, *s.comm, workload_config(config), report, log);
  return std::nullopt;
}

// A failure on one of several ranks: other ranks may be waiting in a collective for this one, so rank 0 reports
// what there is and every rank ends at once (HostComm::abort does not return). An interruption (Ctrl-C, SIGTERM)
// reaches every rank at the same sample, and rank 0 then writes what finished before it ends the job: another
// rank that ended the job first would cut that short, so it leaves the end to rank 0 and ends the job itself
// only if rank 0 has not within the grace period.
void abort_ranks(Session& s, const Failure& failure, Report& report, const RunFacts& facts, const RunFolder* folder) {
  s.logger.error(failure.message);
  report.exit_code = to_int(failure.code);
  report.error = "rank " + std::to_string(s.comm->ranks().rank) + ": " + failure.message;
  if (s.comm->ranks().rank == 0) {
    report.context = run_context(context_sources(s), facts, false);
    emit_report(s, report, folder);
  } else if (failure.code == ExitCode::interrupted) {
    std::this_thread::sleep_for(std::chrono::seconds(interrupt_grace_seconds()));
  }
  s.comm->abort(report.exit_code);
}

// Measured runs keep a run folder on rank 0 (journal.hpp); other modes take seconds and keep none.
Expected<std::unique_ptr<RunFolder>> open_run_folder(const Session& s, const Target& target,
                                                     const ResolvedConfig& config, dgx_mode mode) {
  if (mode != DGX_MODE_MEASURE) {
    if (!s.options.resume.empty()) {
      return Failure{ExitCode::usage, "--resume " + s.options.resume +
                                          ": only measured runs keep a journal (this run's "
                                          "mode is " +
                                          std::string(mode_name(mode)) + ")"};
    }
    return std::unique_ptr<RunFolder>();
  }
  if (s.comm->ranks().rank != 0) {
    return std::unique_ptr<RunFolder>();
  }
  return RunFolder::open(s.options, target, config, *s.comm, s.logger);
}

// --store, DGX_STORE: after the results are written, so that a store that fails names where they are.
void record_run(const Session& s, Report& report, const RunFolder* folder) {
  if (report.exit_code == to_int(ExitCode::usage) && report.rows.empty()) {
    return;  // nothing ran
  }
  std::string source = "the output of " + text::join(s.options.argv, " ");
  if (folder != nullptr) {
    source = (folder->dir() / kRunResultsFile).string();
  } else if (!s.options.output.empty() && s.options.output != kStdoutPath) {
    source = s.options.output;
  }
  if (auto problem = record_in_store(s.options, report, source)) {
    s.logger.error(*problem);
    report.error = report.exit_code == 0 ? *problem : report.error + "; " + *problem;
    if (report.exit_code == 0) {
      report.exit_code = to_int(ExitCode::usage);
    }
  }
}

}  // namespace

// The results file first, so that what stdout says about the run (status.exit_code, ok) includes whether the
// file could be written.
int emit_report(const Session& s, Report& report, const RunFolder* folder) {
  if (s.comm->ranks().rank != 0) {
    return report.exit_code;  // rank 0 reports for everyone
  }
  if (folder != nullptr) {
    if (auto problem = folder->write_results(report)) {
      s.logger.warn("cannot write the run folder's " + std::string(kRunResultsFile) + ": " + *problem);
    }
    if (report.exit_code != 0 && report.exit_code != to_int(ExitCode::usage)) {
      s.logger.info("finished cases are in " + folder->dir().string() + "/" + kJournalFile + "; dgxhost --resume " +
                    folder->dir().string() + " completes the run");
    }
  }
  const std::string& path = s.options.output;
  if (!path.empty() && path != kStdoutPath) {
    const Format format = output_format(path, stdout_format(s.options)).value();  // checked before the run
    if (auto problem = write_report(report, format, path)) {
      const std::string message = "cannot write the results to " + path + ": " + problem->message;
      s.logger.error(message);
      report.error = report.exit_code == 0 ? message : report.error + "; " + message;
      if (report.exit_code == 0) {
        report.exit_code = to_int(problem->code);
      }
    }
  }
  record_run(s, report, folder);
  const Format shown = stdout_format(s.options);
  if (report.exit_code == to_int(ExitCode::usage) && report.rows.empty() && shown == Format::table) {
    return report.exit_code;  // a config error is the whole answer, as when it is found before the run: no banner
  }
  const auto text = render(report, shown, stdout_width());
  if (!text) {
    s.logger.error(text.error().message);
    return report.exit_code == 0 ? to_int(text.error().code) : report.exit_code;
  }
  std::cout << text.value() << std::flush;
  return report.exit_code;
}

std::optional<int> run_to_report(Session& s, const Target& target, const ResolvedConfig& config, Report& report,
                                 std::unique_ptr<RunFolder>* folder) {
  const WorkloadInfo& w = *target.workload;
  HostServices services(s.logger, *s.comm, s.config_paths, w.plugin->name);
  services.bind_config(&config);
  if (s.comm->ranks().rank == 0) {
    services.set_output_folder(s.options.emit);  // --emit DIR: the workload's files, written once
  }
  auto mode = choose_mode(s, w, services.api());
  if (auto code = agree_or_exit(s, failure_of(mode))) {
    return *code;
  }
  auto baseline = prepare_baseline(s.options.baseline, config);  // --baseline, read before the run
  if (auto code = agree_or_exit(s, failure_of(baseline))) {
    return *code;
  }
  RunFolder* journal = nullptr;
  if (folder != nullptr) {
    auto opened = open_run_folder(s, target, config, mode.value());
    if (auto code = agree_or_exit(s, failure_of(opened))) {
      return *code;
    }
    *folder = std::move(opened.value());
    journal = folder->get();
  }

  services.bind_report(&report, w.name, w.plugin->name, workload_config(config));
  CallResult outcome;
  // The instance is destroyed inside run_mode, before reporting: its teardown may still log.
  if (auto code = run_mode(s, services, w, mode.value(), config, report, outcome, journal)) {
    return code;
  }
  if (auto refused = services.take_refusal()) {
    outcome = refused;  // whatever the plugin made of the failed call
  }
  const RunFacts facts{target, config, to_string(s.options.mode), mode.value(), s.options.argv};
  if (outcome && s.comm->ranks().world_size > 1) {
    abort_ranks(s, *outcome, report, facts, journal);
  }
  report.context = run_context(context_sources(s), facts);
  add_declarations(report.workloads, w.declarations);  // what its rows mean, for whoever reads the file
  if (outcome) {
    report.exit_code = to_int(outcome->code);
    report.error = outcome->message;
    s.logger.error(outcome->message);
  }
  if (baseline.value()) {
    apply_baseline(report, baseline.value()->baseline, baseline.value()->threshold);
  }
  return std::nullopt;
}

namespace {

int describe(const Session& s, const Target& target, const ResolvedConfig& config) {
  if (s.comm->ranks().rank != 0) {
    return 0;
  }
  if (stdout_format(s.options) == Format::json) {
    std::cout << json::write(describe_json(target, config)) << "\n";
  } else {
    std::cout << describe_text(target, config);
  }
  return 0;
}

// Ranks started with different configurations would wait forever in mismatched collectives: before the first
// one, every rank compares its workload, mode and resolved configuration with rank 0's.
std::optional<Failure> same_run_on_every_rank(const Session& s, const Target& target, const ResolvedConfig& config) {
  if (s.comm->ranks().world_size < 2) {
    return std::nullopt;
  }
  json::Object mine;
  mine.set("workload", target.plugin->name + ":" + target.workload->name);
  mine.set("mode", std::string(to_string(s.options.mode)));
  mine.set("config", config.to_json());
  std::string text = json::write(mine, 0);
  std::uint64_t size = text.size();
  s.comm->broadcast(&size, sizeof size, 0);
  if (size > (std::uint64_t{1} << 30)) {
    return Failure{ExitCode::usage, "rank 0's configuration is implausibly large"};
  }
  std::string rank0(size, '\0');
  if (s.comm->ranks().rank == 0) {
    rank0 = text;
  }
  s.comm->broadcast(rank0.data(), size, 0);
  if (rank0 == text) {
    return std::nullopt;
  }
  try {
    const std::string difference = run_difference(json::parse(rank0).as_object(), mine, "rank 0's", "this rank's");
    return Failure{ExitCode::usage, "this rank was started with a different run than rank 0: " +
                                        (difference.empty() ? std::string("the descriptions differ") : difference) +
                                        " (every rank must get the same command line and config files)"};
  } catch (const std::exception& e) {
    return Failure{ExitCode::usage, std::string("cannot read rank 0's configuration: ") + e.what()};
  }
}

// Runs the resolved workload and reports. Collective.
int run_workload(Session& s, const Target& target, const ResolvedConfig& config) {
  Report report;
  std::unique_ptr<RunFolder> folder;
  if (auto code = run_to_report(s, target, config, report, &folder)) {
    return *code;
  }
  return emit_report(s, report, folder.get());
}

}  // namespace

int run_command(Session& s) {
  auto resolved = resolve_run(s);
  if (auto code = agree_or_exit(s, failure_of(resolved))) {
    return *code;
  }
  const auto& [target, resolution] = resolved.value();
  if (s.options.describe) {
    return describe(s, target, resolution.config);
  }
  if (auto code = agree_or_exit(s, same_run_on_every_rank(s, target, resolution.config))) {
    return *code;
  }
  return run_workload(s, target, resolution.config);
}

std::optional<Failure> validate_run(const std::vector<std::string>& args) {
  std::vector<const char*> argv{"dgxhost"};
  for (const std::string& a : args) {
    argv.push_back(a.c_str());
  }
  auto options = parse_cli(static_cast<int>(argv.size()), argv.data());
  if (!options) {
    return options.error();
  }
  Session s;
  s.options = std::move(options.value());
  s.logger.configure(DGX_LOG_WARNING, false);
  s.comm = std::make_unique<LocalComm>();
  if (auto failure = discover_plugins(s)) {
    return failure;
  }
  if (names_platform_check(s.options.plugin)) {
    return failure_of(load_platform_check());
  }
  return failure_of(resolve_run(s));
}

}  // namespace dgx
