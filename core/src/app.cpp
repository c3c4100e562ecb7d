#include "dgx/core/app.hpp"

#include <algorithm>
#include <iostream>

#include "dgx/core/build_info.hpp"
#include "dgx/core/cancellation.hpp"
#include "dgx/core/compare.hpp"
#include "dgx/core/context.hpp"
#include "dgx/core/crash_report.hpp"
#include "dgx/core/journal.hpp"
#include "dgx/core/launch.hpp"
#include "dgx/core/listing.hpp"
#include "dgx/core/platform_check.hpp"
#include "dgx/core/plugin_option.hpp"
#include "dgx/core/run_config.hpp"
#include "dgx/core/text.hpp"
#include "run_folder.hpp"
#include "session.hpp"

namespace dgx {

namespace {

int print_version() {
  std::cout << "dgxhost " << build_info::version() << " (git " << build_info::git_revision() << ", "
            << build_info::build_type() << "), plugin ABI " << abi_version_string(kHostAbiMin) << "-"
            << abi_version_string(kHostAbiMax) << "\n";
  return 0;
}

int list(const Session& s) {
  if (s.comm->ranks().rank != 0) return 0;
  if (stdout_format(s.options) == Format::json)
    std::cout << json::write(list_json(s.registry, s.plugin_paths)) << "\n";
  else
    std::cout << list_text(s.registry, s.plugin_paths)
              << "\nChecks:\n  platform-check  GEMM, HBM copy, NCCL collectives and one layer of a GPU node, each "
                 "against its published reference (--describe lists the steps)\n";
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

// Platform check (platform_check.hpp) ---------------------------------------------------------------------------

json::Object plan_context(const Session& s, const DeviceReport& devices) {
  json::Object c;
  json::Object self;
  self.set("version", build_info::version());
  self.set("git_revision", build_info::git_revision());
  c.set("dgxhost", std::move(self));
  c.set("time", utc_timestamp());
  c.set("host", host_info());
  c.set("gpus", devices.gpus_json());
  c.set("gpu_summary", devices.summary());
  c.set("workload", std::string(kPlatformCheck));
  c.set("mode", "plan");
  c.set("argv", json::Array(s.options.argv.begin(), s.options.argv.end()));
  return c;
}

// The command line's --set entries a step takes: runner.* and verdict.* always, others when its workload has the
// key (so --set hbm.bytes=2G reaches the HBM step and no other).
std::vector<std::string> step_sets(const Session& s, const CheckStep& step) {
  std::vector<std::string> sets = step.sets;
  auto target = resolve_name(s.registry, step.workload);
  const std::vector<ParamSpec> schema = target ? schema_for(*target->workload) : std::vector<ParamSpec>{};
  for (const std::string& set : s.options.sets) {
    auto entry = parse_set_argument(set);
    if (!entry) continue;
    const bool everywhere = text::starts_with(entry->key, "runner.") || text::starts_with(entry->key, "verdict.");
    if (everywhere ||
        std::any_of(schema.begin(), schema.end(), [&](const ParamSpec& p) { return p.key == entry->key; }))
      sets.push_back(set);
  }
  return sets;
}

// One step through the ordinary run path, with --baseline published and --mode measure.
Report run_check_step(Session& s, const CliOptions& user, const CheckStep& step) {
  s.options = user;
  s.options.plugin = step.workload;
  s.options.sets = step_sets(s, step);
  s.options.aliases.clear();
  s.options.baseline = "published";
  s.options.mode = RequestedMode::measure;
  Report report;
  auto resolved = resolve_run(s);
  if (auto code = agree_or_exit(s, failure_of(resolved))) {
    report.exit_code = *code;
    report.error = resolved ? "exit code " + std::to_string(*code) : resolved.error().message;
    return report;
  }
  const auto& [target, resolution] = resolved.value();
  if (auto code = run_to_report(s, target, resolution.config, report, nullptr)) {  // steps keep no run folder
    report.exit_code = *code;
    if (report.error.empty()) report.error = "ended with exit code " + std::to_string(*code);
  }
  return report;
}

int describe_check(const Session& s) {
  auto check = load_platform_check(s.config_paths);
  if (!check) return fail(s, check.error());
  if (s.comm->ranks().rank == 0)
    std::cout << "platform-check (" << check->origin << "): each step with --mode measure --baseline published, "
              << "one report and one verdict; without a GPU the plan and exit 4\n\n"
              << describe_steps(check.value()) << "\n";
  return 0;
}

int run_platform_check(Session& s) {
  auto check = load_platform_check(s.config_paths);
  if (!check) return fail(s, check.error());
  const DeviceReport devices = probe_devices(s.registry, s.plugin_services->api(), s.logger);
  if (check->needs_gpu && devices.devices.empty()) {  // a plan: what it would run, against which references
    auto references = load_published_references(s.config_paths);
    if (!references) return fail(s, references.error());
    Report plan = platform_check_plan(check.value(), references.value(), devices.summary());
    plan.context = plan_context(s, devices);
    s.logger.error(plan.error);
    return emit_report(s, plan);
  }
  const CliOptions user = s.options;
  std::vector<Report> reports;
  for (const CheckStep& step : check->steps) {
    s.logger.info("platform-check: " + step.name);
    reports.push_back(run_check_step(s, user, step));
  }
  s.options = user;
  Report merged = merge_check_reports(check.value(), std::move(reports));
  if (merged.exit_code != 0) s.logger.error("platform-check: " + merged.error);
  return emit_report(s, merged);
}

// A command line that did not parse may still have asked for JSON on stdout.
bool asks_for_json(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--format=json" || (a == "--format" && i + 1 < argc && std::string_view(argv[i + 1]) == "json"))
      return true;
  }
  return false;
}

int usage_failure(int argc, const char* const* argv, const Failure& failure) {
  Session s;
  s.options.argv.assign(argv, argv + argc);
  if (asks_for_json(argc, argv)) s.options.format = "json";
  return fail(s, failure);
}

// `dgxhost --resume DIR` without --plugin repeats the command line its journal recorded; only the way results are
// shown (--format, --output, --quiet, --verbose) may be given anew.
Expected<CliOptions> parse_or_resume(int argc, const char* const* argv) {
  auto options = parse_cli(argc, argv);
  if (!options || options->resume.empty() || !options->plugin.empty()) return options;
  if (!options->config_files.empty() || !options->sets.empty() || !options->aliases.empty())
    return Failure{ExitCode::usage, "--resume DIR without --plugin repeats the journal's command line; give the "
                                    "whole command line (with --plugin) to change it"};
  std::vector<std::pair<std::string, std::string>> fresh;  // option, value ("" for switches)
  if (options->format != "table") fresh.emplace_back("--format", options->format);
  if (!options->output.empty()) fresh.emplace_back("--output", options->output);
  if (options->quiet) fresh.emplace_back("--quiet", "");
  auto stored = resumed_argv(options->resume, {"--format", "--output", "-o", "--quiet", "-q"});
  if (!stored) return stored.error();
  for (const auto& [option, value] : fresh) {
    stored->push_back(option);
    if (!value.empty()) stored->push_back(value);
  }
  std::vector<const char*> pointers;
  for (const std::string& a : stored.value()) pointers.push_back(a.c_str());
  auto resumed = parse_cli(static_cast<int>(pointers.size()), pointers.data());
  if (resumed) resumed->verbose = std::max(resumed->verbose, options->verbose);
  return resumed;
}

}  // namespace

namespace {

// Ranks started with different configurations would wait forever in mismatched collectives: before the first
// one, every rank compares its workload, mode and resolved configuration with rank 0's.
std::optional<Failure> same_run_on_every_rank(const Session& s, const Target& target, const ResolvedConfig& config) {
  if (s.comm->ranks().world_size < 2) return std::nullopt;
  json::Object mine;
  mine.set("workload", target.plugin->name + ":" + target.workload->name);
  mine.set("mode", std::string(to_string(s.options.mode)));
  mine.set("config", config.to_json());
  std::string text = json::write(mine, 0);
  std::uint64_t size = text.size();
  s.comm->broadcast(&size, sizeof size, 0);
  if (size > (std::uint64_t{1} << 30)) return Failure{ExitCode::usage, "rank 0's configuration is implausibly large"};
  std::string rank0(size, '\0');
  if (s.comm->ranks().rank == 0) rank0 = text;
  s.comm->broadcast(rank0.data(), size, 0);
  if (rank0 == text) return std::nullopt;
  try {
    const std::string difference = run_difference(json::parse(rank0).as_object(), mine, "rank 0's", "this rank's");
    return Failure{ExitCode::usage, "this rank was started with a different run than rank 0: " +
                                        (difference.empty() ? std::string("the descriptions differ") : difference) +
                                        " (every rank must get the same command line and config files)"};
  } catch (const std::exception& e) {
    return Failure{ExitCode::usage, std::string("cannot read rank 0's configuration: ") + e.what()};
  }
}

}  // namespace

std::optional<Failure> validate_run(const std::vector<std::string>& args) {
  std::vector<const char*> argv{"dgxhost"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  auto options = parse_cli(static_cast<int>(argv.size()), argv.data());
  if (!options) return options.error();
  Session s;
  s.options = std::move(options.value());
  s.logger.configure(DGX_LOG_WARNING, false);
  s.comm = std::make_unique<LocalComm>();
  if (auto failure = discover_plugins(s)) return failure;
  if (names_platform_check(s.options.plugin)) return failure_of(load_platform_check(s.config_paths));
  return failure_of(resolve_run(s));
}

int run_app(int argc, const char* const* argv) {
  if (argc >= 2 && std::string(argv[1]) == "launch") return run_launch(argc - 1, argv + 1);
  if (argc >= 2 && std::string(argv[1]) == "compare") return run_compare(argc - 1, argv + 1);
  auto options = parse_or_resume(argc, argv);
  if (!options) return usage_failure(argc, argv, options.error());
  Session s;
  s.options = std::move(options.value());
  if (s.options.help) {
    std::cout << cli_help();
    return 0;
  }
  if (s.options.version) return print_version();
  if (auto failure = join_ranks(s)) return fail(s, *failure);
  if (auto code = agree_or_exit(s, check_outputs(s.options))) return *code;
  install_cancellation_handlers();
  install_crash_handlers();
  if (auto code = agree_or_exit(s, discover_plugins(s))) return *code;
  if (s.options.list) return list(s);
  if (names_platform_check(s.options.plugin)) return s.options.describe ? describe_check(s) : run_platform_check(s);

  auto resolved = resolve_run(s);
  if (auto code = agree_or_exit(s, failure_of(resolved))) return *code;
  const auto& [target, resolution] = resolved.value();
  if (s.options.describe) return describe(s, target, resolution.config);
  if (auto code = agree_or_exit(s, same_run_on_every_rank(s, target, resolution.config))) return *code;
  return run_workload(s, target, resolution.config);
}

}  // namespace dgx
