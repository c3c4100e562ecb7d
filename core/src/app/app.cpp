#include "dgx/core/app/app.hpp"

#include <iostream>
#include <string>
#include <string_view>

#include "compare_command.hpp"
#include "dgx/core/app/launch_command.hpp"
#include "dgx/core/app/plugin_option.hpp"
#include "dgx/core/plugin/call_guard.hpp"
#include "dgx/core/plugin/cancellation.hpp"
#include "dgx/core/plugin/crash_report.hpp"
#include "dgx/core/report/listing.hpp"
#include "dgx/core/support/build_info.hpp"
#include "dgx/core/support/files.hpp"
#include "history_command.hpp"
#include "import_command.hpp"
#include "platform_check_command.hpp"
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

int run_app(int argc, const char* const* argv) {
  keep_standard_fds_open();
  if (argc >= 2 && std::string(argv[1]) == "launch") {
    install_crash_handlers();  // launch loads the plugins to check what the ranks will run
    install_call_guards(nullptr);
    return finish_stdout(nullptr, run_launch(argc - 1, argv + 1));
  }
  if (argc >= 2 && std::string(argv[1]) == "compare") {
    return finish_stdout(nullptr, run_compare(argc - 1, argv + 1));
  }
  if (argc >= 2 && std::string(argv[1]) == "verdict") {
    install_crash_handlers();  // the projections run plugins
    install_call_guards(nullptr);
    return finish_stdout(nullptr, run_verdict(argc - 1, argv + 1));
  }
  if (argc >= 2 && std::string(argv[1]) == "import") {
    return finish_stdout(nullptr, run_import(argc - 1, argv + 1));
  }
  if (argc >= 2 && std::string(argv[1]) == "store") {
    return finish_stdout(nullptr, run_store(argc - 1, argv + 1));
  }
  if (argc >= 2 && std::string(argv[1]) == "history") {
    return finish_stdout(nullptr, run_history(argc - 1, argv + 1));
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
