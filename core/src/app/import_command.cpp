// The `dgxhost import FILE... [--set KEY=VALUE ...]` command line: reads each file (import/import.cpp) into one
// report and writes it with the usual reporters, as `dgxhost compare` does.
#include "import_command.hpp"

#include <iostream>

#include <boost/program_options.hpp>

#include "dgx/core/import/import.hpp"
#include "session.hpp"
#include "subcommand.hpp"

namespace po = boost::program_options;

namespace dgx {

namespace {

struct ImportCli {
  std::vector<std::string> files;
  std::vector<std::string> sets;
  SubcommandOutput out;
  std::vector<std::string> config_dirs;
  bool help = false;
};

std::string formats_text() {
  std::string text;
  for (const std::string& f : import_formats()) {
    text += (text.empty() ? "" : ", ") + f;
  }
  return text;
}

po::options_description import_options(ImportCli& c) {
  po::options_description d("dgxhost import FILE...: a run's own output as measured rows (" + formats_text() + ")");
  d.add_options()("help,h", po::bool_switch(&c.help), "show this help and exit")(
      "set", po::value<std::vector<std::string>>(&c.sets)->composing()->value_name("KEY=VALUE"),
      "what the file does not print (system=h100-sxm, gpus=64, model=NAME, ...); repeatable. A value that "
      "contradicts the file is an error");
  add_output_options(d, c.out, "the rows");
  add_config_dir_option(d, c.config_dirs);
  return d;
}

Expected<ImportCli> parse_import(int argc, const char* const* argv) {
  ImportCli c;
  po::options_description d = import_options(c);
  if (auto problem = parse_subcommand(argc, argv, d, c.out, "import", -1, &c.files)) {
    return *problem;
  }
  if (c.help) {
    return c;
  }
  if (c.files.empty()) {
    return Failure{ExitCode::usage, "import needs a file: dgxhost import FILE... [--set KEY=VALUE ...]"};
  }
  return c;
}

}  // namespace

int run_import(int argc, const char* const* argv) {
  auto cli = parse_import(argc, argv);
  if (!cli) {
    return print_failure("import", cli.error());
  }
  if (cli->help) {
    ImportCli scratch;
    std::cout << import_options(scratch)
              << "\nExit codes: 0 imported, 2 usage error or a file that cannot be imported (empty, binary, of no "
                 "known format, truncated, a crashed run, several runs, a key missing or contradicted), 1 the "
                 "--output file could not be written.\n";
    return 0;
  }
  if (auto paths = use_config_dirs(cli->config_dirs); !paths) {
    return print_failure("import", paths.error());
  }
  auto report = import_files(cli->files, cli->sets);
  if (!report) {
    return print_failure("import", report.error());
  }
  report->context.set("argv", command_argv(argc, argv));
  return emit_subcommand_report(*report, cli->out);
}

}  // namespace dgx
