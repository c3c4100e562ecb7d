#include "dgx/core/app.hpp"

#include <iostream>

#include "dgx/core/build_info.hpp"
#include "dgx/core/cancellation.hpp"
#include "dgx/core/crash_report.hpp"
#include "dgx/core/journal.hpp"
#include "dgx/core/launch.hpp"
#include "dgx/core/listing.hpp"
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
  return failure_of(resolve_run(s));
}

int run_app(int argc, const char* const* argv) {
  if (argc >= 2 && std::string(argv[1]) == "launch") return run_launch(argc - 1, argv + 1);
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

  auto resolved = resolve_run(s);
  if (auto code = agree_or_exit(s, failure_of(resolved))) return *code;
  const auto& [target, resolution] = resolved.value();
  if (s.options.describe) return describe(s, target, resolution.config);
  if (auto code = agree_or_exit(s, same_run_on_every_rank(s, target, resolution.config))) return *code;
  return run_workload(s, target, resolution.config);
}

}  // namespace dgx
