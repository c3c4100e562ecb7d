// `dgxhost store add|info` and recording a run in the store (store_command.hpp).
#include "store_command.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <iostream>

#include <boost/program_options.hpp>

#include "dgx/core/import/import.hpp"
#include "dgx/core/results/document_reader.hpp"
#include "dgx/core/run/journal.hpp"
#include "dgx/core/store/store.hpp"
#include "dgx/core/support/files.hpp"
#include "dgx/core/support/text.hpp"
#include "dgx/core/support/utc_time.hpp"
#include "session.hpp"
#include "subcommand.hpp"

namespace po = boost::program_options;

namespace dgx {

Expected<std::optional<std::string>> run_store_location(const CliOptions& options) {
  if (options.store == "off") {
    return std::optional<std::string>();
  }
  if (options.store == "default") {
    std::string location = default_store_location();
    if (location.empty()) {
      return Failure{ExitCode::usage, "--store: there is no default store with DGX_RUNS_DIR=off; name one "
                                      "(--store FILE or a postgresql:// URL) or set DGX_STORE"};
    }
    // The run-folder root holds the default store: on a first run it does not exist yet, and the run would make it.
    if (!store_from_environment()) {
      std::error_code ec;
      std::filesystem::create_directories(runs_root(), ec);
    }
    return std::optional<std::string>(std::move(location));
  }
  if (!options.store.empty()) {
    return std::optional<std::string>(options.store);
  }
  return store_from_environment();
}

std::optional<Failure> check_run_store(const CliOptions& options) {
  auto location = run_store_location(options);
  if (!location) {
    return location.error();
  }
  if (!location.value()) {
    return std::nullopt;
  }
  auto store = open_store(**location);
  if (!store) {
    return Failure{store.error().code, store.error().message + " (checked before the run; nothing was run)"};
  }
  return std::nullopt;
}

std::optional<std::string> record_in_store(const CliOptions& options, const Report& report, const std::string& source) {
  auto location = run_store_location(options);
  if (!location || !location.value()) {
    return std::nullopt;  // checked before the run
  }
  auto store = open_store(**location);
  auto added = store ? store.value()->add(report, source) : Expected<AddOutcome>(store.error());
  if (!added) {
    return "the run was not recorded: " + added.error().message + "; its results are in " + source +
           " (dgxhost store add records them later)";
  }
  return std::nullopt;
}

namespace {

struct StoreCli {
  std::string action;
  std::vector<std::string> files;
  std::vector<std::string> sets;
  std::string store;
  std::vector<std::string> config_dirs;
  std::vector<std::string> plugin_dirs;
  bool help = false;
};

po::options_description store_options(StoreCli& c) {
  po::options_description d("dgxhost store add FILE... | store info: the results store (dgxhost history reads it)");
  d.add_options()("help,h", po::bool_switch(&c.help), "show this help and exit")(
      "store", po::value<std::string>(&c.store)->value_name("FILE|URL"),
      "a SQLite file or a postgresql:// URL; default $DGX_STORE, else dgx-store.sqlite in the run-folder root "
      "($DGX_RUNS_DIR or ./dgx-runs)")(
      "set", po::value<std::vector<std::string>>(&c.sets)->composing()->value_name("KEY=VALUE"),
      "for a log: what it does not print, as dgxhost import --set (system=h100-sxm, ...); repeatable")(
      "plugin-dir", po::value<std::vector<std::string>>(&c.plugin_dirs)->value_name("DIR"),
      "for a log: where the plugins that read logs are (as for a run)");
  add_config_dir_option(d, c.config_dirs);
  return d;
}

Expected<StoreCli> parse_store(int argc, const char* const* argv) {
  StoreCli c;
  po::options_description d = store_options(c);
  d.add_options()("action", po::value<std::string>(&c.action))(  // positional: add FILE... | info
      "files", po::value<std::vector<std::string>>(&c.files));
  po::positional_options_description positional;
  positional.add("action", 1).add("files", -1);
  try {
    po::variables_map vm;
    po::store(po::command_line_parser(argc, argv).options(d).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    return Failure{ExitCode::usage, std::string(e.what()) + " (dgxhost store --help)"};
  }
  if (c.help) {
    return c;
  }
  if (c.action != "add" && c.action != "info") {
    return Failure{ExitCode::usage,
                   (c.action.empty() ? std::string("an action is needed") : "unknown action '" + c.action + "'") +
                       ": dgxhost store add FILE... | dgxhost store info"};
  }
  if (c.action == "add" && c.files.empty()) {
    return Failure{ExitCode::usage, "store add needs a results file or a log: dgxhost store add FILE..."};
  }
  if (c.action == "info" && !c.files.empty()) {
    return Failure{ExitCode::usage, "store info takes no file (" + c.files.front() + ")"};
  }
  if (c.store.empty()) {
    c.store = default_store_location();
    if (c.store.empty()) {
      return Failure{ExitCode::usage, "no store: DGX_RUNS_DIR=off and DGX_STORE is not set; name one with --store"};
    }
  }
  return c;
}

// A dgx.results/1 document, or a log for dgxhost import: decided by the file's first bytes. The file is checked as
// the readers check it (a regular file, opened without blocking: a FIFO is refused, not waited on).
Expected<bool> looks_like_results(const std::string& path) {
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0) {
    return Failure{ExitCode::usage, path + ": " + os_reason(errno)};
  }
  if (!S_ISREG(st.st_mode)) {
    return Failure{ExitCode::usage, path + ": is " + std::string(file_kind(st.st_mode)) + ", not a regular file"};
  }
  std::string head(4096, '\0');
  const ssize_t n = ::read(fd.get(), head.data(), head.size());
  head.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  const std::size_t first = head.find_first_not_of(" \t\r\n");
  return first != std::string::npos && head[first] == '{' && head.find("\"dgx.results/") != std::string::npos;
}

Expected<Report> read_any(const LogImporter& importer, const std::string& path, const std::vector<std::string>& sets) {
  auto results = looks_like_results(path);
  if (!results) {
    return results.error();
  }
  if (*results) {
    if (!sets.empty()) {
      return Failure{ExitCode::usage, path + ": --set is for logs; a results file records the configuration it ran"};
    }
    return read_results_file(path);
  }
  return importer.import_files({path}, sets);
}

int add(Store& store, const StoreCli& c, const LogImporter& importer) {
  int code = 0;
  for (const std::string& path : c.files) {
    auto report = read_any(importer, path, c.sets);
    auto added = report ? store.add(report.value(), path) : Expected<AddOutcome>(report.error());
    if (!added) {
      std::cerr << "dgxhost: store add: " << added.error().message << " (not recorded)\n";
      code = to_int(added.error().code);
      continue;
    }
    if (added->already_recorded) {
      std::cout << path << ": already recorded as run " << added->run_id << " (nothing written)\n";
    } else {
      std::cout << path << ": recorded as run " << added->run_id << " (" << added->rows << " rows, " << added->points
                << " points)\n";
    }
  }
  std::cout << store.describe() << "\n";
  return code;
}

int info(Store& store) {
  auto summary = store.summary();
  if (!summary) {
    std::cerr << "dgxhost: store info: " << summary.error().message << "\n";
    return to_int(summary.error().code);
  }
  const StoreSummary& s = summary.value();
  std::cout << store.describe() << ", schema version " << s.schema_version << "\n"
            << s.runs << " runs, " << s.series << " series, " << s.points << " points";
  if (s.runs > 0) {
    std::cout << ", from " << iso_utc(s.first) << " to " << iso_utc(s.last);
  }
  std::cout << "\n";
  return 0;
}

}  // namespace

int run_store(int argc, const char* const* argv) {
  auto cli = parse_store(argc, argv);
  if (!cli) {
    std::cerr << "dgxhost: store: " << cli.error().message << "\n";
    return to_int(cli.error().code);
  }
  if (cli->help) {
    StoreCli scratch;
    std::cout << store_options(scratch)
              << "\nExit codes: 0 recorded (or already there), 2 a store that cannot be opened or a file that cannot "
                 "be read (the other files are still recorded).\n";
    return 0;
  }
  // The plugins read the logs among the files to add (import's formats).
  Session s;
  if (auto failure = cli->action == "add" ? open_plugins(s, cli->plugin_dirs, cli->config_dirs, true)
                                          : failure_of(use_config_dirs(cli->config_dirs))) {
    std::cerr << "dgxhost: store: " << failure->message << "\n";
    return to_int(failure->code);
  }
  auto store = open_store(cli->store, cli->action == "add" ? StoreAccess::write : StoreAccess::read);
  if (!store) {
    std::cerr << "dgxhost: store: " << store.error().message << "\n";
    return to_int(store.error().code);
  }
  return cli->action == "add" ? add(*store.value(), cli.value(), log_importer(s)) : info(*store.value());
}

}  // namespace dgx
