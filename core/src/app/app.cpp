#include "dgx/core/app/app.hpp"

#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "compare_command.hpp"
#include "dgx/core/app/launch_command.hpp"
#include "dgx/core/app/plugin_option.hpp"
#include "dgx/core/plugin/call_guard.hpp"
#include "dgx/core/plugin/cancellation.hpp"
#include "dgx/core/plugin/crash_report.hpp"
#include "dgx/core/report/listing.hpp"
#include "dgx/core/support/build_info.hpp"
#include "dgx/core/support/files.hpp"
#include "dgx/core/support/printable.hpp"
#include "dgx/core/support/text.hpp"
#include "history_command.hpp"
#include "import_command.hpp"
#include "model_command.hpp"
#include "platform_check_command.hpp"
#include "report_command.hpp"
#include "resume_command.hpp"
#include "run_command.hpp"
#include "session.hpp"
#include "store_command.hpp"
#include "verdict_command.hpp"

namespace dgx {

namespace {

int print_version() {
  std::cout << "dgxhost " << build_info::version() << " (git " << build_info::git_revision() << ", "
            << build_info::build_type() << "), plugin ABI " << abi_version_string(kHostAbiMin) << "-"
            << abi_version_string(kHostAbiMax) << "\n";
  return 0;
}

int list(const Session& s) {
  if (s.comm->ranks().rank != 0) {
    return 0;
  }
  if (stdout_format(s.options) == Format::json) {
    std::cout << json::write(list_json(s.registry, s.plugin_paths)) << "\n";
  } else {
    std::cout
        << list_text(s.registry, s.plugin_paths)
        << "\nChecks:\n  platform-check  GEMM, HBM copy, NCCL collectives, one layer and one training step of a GPU "
           "node, each against its published reference (--describe lists the steps)\n";
  }
  return 0;
}

// A command line that did not parse may still have asked for JSON on stdout.
bool asks_for_json(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--format=json" || (a == "--format" && i + 1 < argc && std::string_view(argv[i + 1]) == "json")) {
      return true;
    }
  }
  return false;
}

int usage_failure(int argc, const char* const* argv, const Failure& failure) {
  Session s;
  s.options.argv.assign(argv, argv + argc);
  if (asks_for_json(argc, argv)) {
    s.options.format = "json";
  }
  return fail(s, failure);
}

}  // namespace

namespace {

/// A command of its own (`dgxhost NAME ...`): its entry point, and whether it runs plugins (then crashes and calls
/// into them are guarded as in a run).
struct Subcommand {
  std::string_view name;
  int (*run)(int, const char* const*);
  bool runs_plugins;
};

constexpr Subcommand kSubcommands[] = {
    {"launch", &run_launch, true},  // loads the plugins to check what the ranks will run
    {"compare", &run_compare, false}, {"verdict", &run_verdict, true},  // the projections run plugins
    {"import", &run_import, true},    {"store", &run_store, true},      // the plugins read the logs
    {"history", &run_history, false}, {"model", &run_model, false},
    {"report", &run_report, false},  // a saved results document in any format
};

/// "unknown command 'histroy'; did you mean 'history'? ..." for a first word that names no command (dgxhost takes
/// no positional argument of its own).
Failure unknown_command(std::string_view word) {
  std::vector<std::string> names;
  for (const Subcommand& c : kSubcommands) {
    names.emplace_back(c.name);
  }
  const std::string suggestion = text::did_you_mean(text::close_matches(word, names, 3));
  return Failure{ExitCode::usage,
                 "unknown command '" + printable(word) + "'" + (suggestion.empty() ? "." : "; " + suggestion) +
                     " The commands: " + text::join(names, ", ") + "; a run is dgxhost --plugin NAME (dgxhost --help)"};
}

}  // namespace

int run_app(int argc, const char* const* argv) {
  keep_standard_fds_open();
  if (argc >= 2) {
    const std::string_view first = argv[1];
    for (const Subcommand& c : kSubcommands) {
      if (first == c.name) {
        if (c.runs_plugins) {
          install_crash_handlers();
          install_call_guards(nullptr);
        }
        return finish_stdout(nullptr, c.run(argc - 1, argv + 1));
      }
    }
    if (!first.empty() && first.front() != '-') {
      return usage_failure(argc, argv, unknown_command(first));
    }
  }
  auto options = parse_or_resume(argc, argv);
  if (!options) {
    return usage_failure(argc, argv, options.error());
  }
  Session s;
  s.options = std::move(options.value());
  if (s.options.help) {
    std::cout << cli_help();
    return finish_stdout(nullptr, 0);
  }
  if (s.options.version) {
    return finish_stdout(nullptr, print_version());
  }
  if (auto failure = join_ranks(s)) {
    return fail(s, *failure);
  }
  if (!s.options.emit_launch.empty()) {
    s.logger.warn("--emit-launch is deprecated: use --emit " + s.options.emit_launch +
                  " (the folder of every workload's files)");
  }
  if (auto code = agree_or_exit(s, check_outputs(s.options))) {
    return *code;
  }
  // The store is rank 0's to write; opened now, so that one that cannot be reached fails before any work.
  const bool records = s.comm->ranks().rank == 0 && !s.options.list && !s.options.describe;
  if (auto code = agree_or_exit(s, records ? check_run_store(s.options) : std::nullopt)) {
    return *code;
  }
  // After MPI_Init, which installs handlers of its own: the host's are the ones every plugin call gets back.
  install_cancellation_handlers();
  install_crash_handlers();
  install_call_guards(&s.logger);
  if (s.comm->ranks().world_size == 1 && std::string_view(s.comm->name()) == "local") {
    allow_restart(argc, argv);  // a rank of an MPI job cannot start again on its own
  }
  if (auto failed = agree_or_exit(s, discover_plugins(s))) {
    s.registry.shutdown(*failed);  // the plugins loaded before the failure: their shutdown() keeps this code
    return *failed;
  }
  int code = 0;
  if (s.options.list) {
    code = list(s);
  } else if (names_platform_check(s.options.plugin)) {
    code = s.options.describe ? describe_platform_check(s) : run_platform_check(s);
  } else {
    code = run_command(s);
  }
  code = finish_stdout(&s.logger, code);
  s.registry.shutdown(code);
  return code;
}

}  // namespace dgx
