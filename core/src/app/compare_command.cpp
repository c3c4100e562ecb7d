// The `dgxhost compare A.json B.json` command line: reads the two results files, compares them
// (verdict/compare.cpp) and reports with the usual reporters.
#include "compare_command.hpp"

#include <iostream>

#include <boost/program_options.hpp>

#include "dgx/core/results/document_reader.hpp"
#include "dgx/core/verdict/compare.hpp"
#include "session.hpp"
#include "subcommand.hpp"

namespace po = boost::program_options;

namespace dgx {

namespace {

struct CompareCli {
  std::vector<std::string> files;
  CompareOptions options;
  SubcommandOutput out;
  std::vector<std::string> config_dirs;
  bool help = false;
};

po::options_description compare_options(CompareCli& c) {
  po::options_description d("dgxhost compare A.json B.json: run B against run A");
  d.add_options()("help,h", po::bool_switch(&c.help), "show this help and exit")(
      "threshold", po::value<double>(&c.options.threshold)->default_value(0.05)->value_name("F"),
      "a change counts when B is more than this fraction better or worse than A")(
      "alpha", po::value<double>(&c.options.alpha)->default_value(0.05)->value_name("P"),
      "with samples on both sides, the U test's p-value must also be below this");
  add_output_options(d, c.out, "the comparison");
  add_config_dir_option(d, c.config_dirs);
  return d;
}

Expected<CompareCli> parse_compare(int argc, const char* const* argv) {
  CompareCli c;
  po::options_description d = compare_options(c);
  if (auto problem = parse_subcommand(argc, argv, d, c.out, "compare", 2, &c.files)) {
    return *problem;
  }
  if (c.help) {
    return c;
  }
  if (c.files.size() != 2) {
    return Failure{ExitCode::usage, "compare needs two results files: dgxhost compare A.json B.json"};
  }
  if (!(c.options.threshold >= 0 && c.options.threshold < 1)) {
    return Failure{ExitCode::usage, "--threshold must be in [0, 1), e.g. 0.05 for 5%"};
  }
  if (!(c.options.alpha > 0 && c.options.alpha < 1)) {
    return Failure{ExitCode::usage, "--alpha must be in (0, 1)"};
  }
  return c;
}

json::Object compare_context(const CompareCli& c, int argc, const char* const* argv) {
  json::Object context = subcommand_context("compare", argc, argv);
  json::Object compare;
  compare.set("a", c.files[0]);
  compare.set("b", c.files[1]);
  compare.set("threshold", c.options.threshold);
  compare.set("alpha", c.options.alpha);
  context.set("compare", std::move(compare));
  return context;
}

}  // namespace

int run_compare(int argc, const char* const* argv) {
  auto cli = parse_compare(argc, argv);
  if (!cli) {
    std::cerr << "dgxhost: " << cli.error().message << "\n";
    return to_int(cli.error().code);
  }
  if (cli->help) {
    CompareCli scratch;
    std::cout << compare_options(scratch)
              << "\nExit codes: 0 no significant regression, 2 usage error or unreadable "
                 "file, 5 a significant regression of B against A.\n";
    return 0;
  }
  if (auto paths = use_config_dirs(cli->config_dirs); !paths) {
    return print_failure("compare", paths.error());
  }
  Expected<Report> runs[2] = {read_results_file(cli->files[0]), read_results_file(cli->files[1])};
  for (const Expected<Report>& run : runs) {
    if (!run) {
      std::cerr << "dgxhost: compare: " << run.error().message << "\n";
      return to_int(run.error().code);
    }
  }
  Report report = compare_runs(*runs[0], cli->files[0], *runs[1], cli->files[1], cli->options);
  report.context = compare_context(*cli, argc, argv);
  return emit_subcommand_report(report, cli->out);
}

}  // namespace dgx
