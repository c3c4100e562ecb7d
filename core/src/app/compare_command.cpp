// The `dgxhost compare A.json B.json` command line: reads the two results files, compares them
// (verdict/compare.cpp) and reports with the usual reporters.
#include "compare_command.hpp"

#include <iostream>
#include <sstream>

#include <boost/program_options.hpp>

#include "dgx/core/report/reporters.hpp"
#include "dgx/core/results/document_reader.hpp"
#include "dgx/core/results/output_path.hpp"
#include "dgx/core/support/build_info.hpp"
#include "dgx/core/verdict/compare.hpp"

namespace po = boost::program_options;

namespace dgx {

namespace {

struct CompareCli {
  std::vector<std::string> files;
  CompareOptions options;
  std::string format = "table";
  std::string output;
  bool help = false;
};

po::options_description compare_options(CompareCli& c) {
  po::options_description d("dgxhost compare A.json B.json: run B against run A");
  d.add_options()("help,h", po::bool_switch(&c.help), "show this help and exit")(
      "threshold", po::value<double>(&c.options.threshold)->default_value(0.05)->value_name("F"),
      "a change counts when B is more than this fraction better or worse than A")(
      "alpha", po::value<double>(&c.options.alpha)->default_value(0.05)->value_name("P"),
      "with samples on both sides, the U test's p-value must also be below this")(
      "format", po::value<std::string>(&c.format)->default_value("table")->value_name("FMT"),
      "stdout format: table | json | csv | md | html")(
      "output,o", po::value<std::string>(&c.output)->value_name("FILE"),
      "also write the comparison to FILE; the format follows its extension (.json .csv .md .html .txt)")(
      "files", po::value<std::vector<std::string>>(&c.files), "the two results files (dgxhost -o FILE.json)");
  return d;
}

Expected<CompareCli> parse(int argc, const char* const* argv) {
  CompareCli c;
  po::options_description d = compare_options(c);
  po::positional_options_description positional;
  positional.add("files", 2);
  try {
    po::variables_map vm;
    po::store(po::command_line_parser(argc, argv).options(d).positional(positional).run(), vm);
    po::notify(vm);
    if (vm.count("output") != 0 && c.output.empty()) {
      return Failure{ExitCode::usage, "compare: --output needs a file name (or - for stdout)"};
    }
  } catch (const po::error& e) {
    return Failure{ExitCode::usage, std::string("compare: ") + e.what() + " (dgxhost compare --help)"};
  }
  if (c.help) {
    return c;
  }
  if (c.files.size() != 2) {
    return Failure{ExitCode::usage, "compare needs two results files: dgxhost compare A.json B.json"};
  }
  if (!format_from_name(c.format)) {
    return Failure{ExitCode::usage, "--format " + c.format + ": expected table, json, csv, md or html"};
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
  json::Object context;
  json::Object dgxhost;
  dgxhost.set("version", build_info::version());
  dgxhost.set("git_revision", build_info::git_revision());
  context.set("dgxhost", std::move(dgxhost));
  context.set("workload", "compare");
  json::Object compare;
  compare.set("a", c.files[0]);
  compare.set("b", c.files[1]);
  compare.set("threshold", c.options.threshold);
  compare.set("alpha", c.options.alpha);
  context.set("compare", std::move(compare));
  json::Array args;
  args.push_back("dgxhost");
  for (int i = 0; i < argc; ++i) {
    args.push_back(argv[i]);
  }
  context.set("argv", std::move(args));
  return context;
}

}  // namespace

int run_compare(int argc, const char* const* argv) {
  auto cli = parse(argc, argv);
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
  const Format format = *format_from_name(cli->format);
  Format file_format = format;
  if (!cli->output.empty()) {  // as for a run: a typo in -o fails before any work, naming the reason
    auto checked = output_format(cli->output, format);
    std::optional<Failure> problem = checked ? check_output_path(cli->output) : checked.error();
    if (problem) {
      std::cerr << "dgxhost: compare: " << problem->message << "\n";
      return to_int(problem->code);
    }
    file_format = checked.value();
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
  // The file first, so that what stdout says (status.exit_code) includes whether it could be written.
  if (!cli->output.empty() && cli->output != kStdoutPath) {
    if (auto problem = write_report(report, file_format, cli->output)) {
      const std::string message = "--output " + cli->output + ": " + *problem;
      std::cerr << "dgxhost: " << message << "\n";
      report.error = report.exit_code == 0 ? message : report.error + "; " + message;
      if (report.exit_code == 0) {
        report.exit_code = to_int(ExitCode::run_failed);
      }
    }
  }
  std::cout << render(report, format) << std::flush;
  if (report.exit_code != 0 && format != Format::table) {
    std::cerr << "dgxhost: " << report.error << "\n";
  }
  return report.exit_code;
}

}  // namespace dgx
