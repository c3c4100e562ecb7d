// The `dgxhost import FILE... [--set KEY=VALUE ...]` command line: reads each file (import/import.cpp) into one
// report and writes it with the usual reporters, as `dgxhost compare` does.
#include "import_command.hpp"

#include <iostream>

#include <boost/program_options.hpp>

#include "dgx/core/import/import.hpp"
#include "dgx/core/report/reporters.hpp"
#include "dgx/core/results/output_path.hpp"

namespace po = boost::program_options;

namespace dgx {

namespace {

struct ImportCli {
  std::vector<std::string> files;
  std::vector<std::string> sets;
  std::string format = "table";
  std::string output;
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
      "what the file does not print (system=h100-sxm, gpus=64, model=llama3.1-70b, ...); repeatable. A value that "
      "contradicts the file is an error")("format",
                                          po::value<std::string>(&c.format)->default_value("table")->value_name("FMT"),
                                          "stdout format: table | json | csv | md | html")(
      "output,o", po::value<std::string>(&c.output)->value_name("FILE"),
      "also write the rows to FILE; the format follows its extension (.json .csv .md .html .txt)")(
      "files", po::value<std::vector<std::string>>(&c.files), "the logs or result files to import");
  return d;
}

Expected<ImportCli> parse(int argc, const char* const* argv) {
  ImportCli c;
  po::options_description d = import_options(c);
  po::positional_options_description positional;
  positional.add("files", -1);
  try {
    po::variables_map vm;
    po::store(po::command_line_parser(argc, argv).options(d).positional(positional).run(), vm);
    po::notify(vm);
    if (vm.count("output") != 0 && c.output.empty()) {
      return Failure{ExitCode::usage, "import: --output needs a file name (or - for stdout)"};
    }
  } catch (const po::error& e) {
    return Failure{ExitCode::usage, std::string("import: ") + e.what() + " (dgxhost import --help)"};
  }
  if (c.help) {
    return c;
  }
  if (c.files.empty()) {
    return Failure{ExitCode::usage, "import needs a file: dgxhost import FILE... [--set KEY=VALUE ...]"};
  }
  if (!format_from_name(c.format)) {
    return Failure{ExitCode::usage, "--format " + c.format + ": expected table, json, csv, md or html"};
  }
  return c;
}

void add_argv(Report& report, int argc, const char* const* argv) {
  json::Array args;
  args.push_back("dgxhost");
  for (int i = 0; i < argc; ++i) {
    args.push_back(argv[i]);
  }
  report.context.set("argv", std::move(args));
}

int fail(const Failure& f) {
  std::cerr << "dgxhost: import: " << f.message << "\n";
  return to_int(f.code);
}

}  // namespace

int run_import(int argc, const char* const* argv) {
  auto cli = parse(argc, argv);
  if (!cli) {
    return fail(cli.error());
  }
  if (cli->help) {
    ImportCli scratch;
    std::cout << import_options(scratch)
              << "\nExit codes: 0 imported, 2 usage error or a file that cannot be imported (empty, binary, of no "
                 "known format, truncated, a crashed run, several runs, a key missing or contradicted), 1 the "
                 "--output file could not be written.\n";
    return 0;
  }
  const Format format = *format_from_name(cli->format);
  Format file_format = format;
  if (!cli->output.empty()) {  // a typo in -o fails before any work, naming the reason
    auto checked = output_format(cli->output, format);
    std::optional<Failure> problem = checked ? check_output_path(cli->output) : checked.error();
    if (problem) {
      return fail(*problem);
    }
    file_format = checked.value();
  }
  auto report = import_files(cli->files, cli->sets);
  if (!report) {
    return fail(report.error());
  }
  add_argv(*report, argc, argv);
  if (!cli->output.empty() && cli->output != kStdoutPath) {
    if (auto problem = write_report(*report, file_format, cli->output)) {
      return fail(Failure{ExitCode::run_failed, "--output " + cli->output + ": " + *problem});
    }
  }
  std::cout << render(*report, format) << std::flush;
  return 0;
}

}  // namespace dgx
