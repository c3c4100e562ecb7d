// The `dgxhost report FILE` command line: reads a dgx.results/1 document (a run folder's results.json, any -o json
// output, of this dgxhost or an older one) and writes it through the reporters a run uses, so that a page lost, or
// never written, can be made from the JSON: `dgxhost report results.json -o page.html`.
#include "report_command.hpp"

#include <iostream>

#include <boost/program_options.hpp>

#include "dgx/core/report/reporters.hpp"
#include "dgx/core/results/document_reader.hpp"
#include "dgx/core/results/output_path.hpp"
#include "subcommand.hpp"

namespace po = boost::program_options;

namespace dgx {

namespace {

struct ReportCli {
  std::vector<std::string> files;
  SubcommandOutput out;
  bool help = false;
};

po::options_description report_options(ReportCli& c) {
  po::options_description d("dgxhost report FILE: a saved results document (results.json) in any report format");
  d.add_options()("help,h", po::bool_switch(&c.help), "show this help and exit");
  add_output_options(d, c.out, "the report");
  return d;
}

Expected<ReportCli> parse_report(int argc, const char* const* argv) {
  ReportCli c;
  po::options_description d = report_options(c);
  if (auto problem = parse_subcommand(argc, argv, d, c.out, "report", 1, &c.files)) {
    return *problem;
  }
  if (!c.help && c.files.size() != 1) {
    return Failure{ExitCode::usage, "report needs one results file: dgxhost report results.json -o page.html"};
  }
  return c;
}

// The saved run's exit code and error belong to its report (its header shows them), not to this command: rendering
// it succeeded unless a file could not be written or a format cannot hold it.
int emit(const Report& report, const SubcommandOutput& out) {
  if (!out.output.empty() && out.output != kStdoutPath) {
    if (auto problem = write_report(report, out.written, out.output)) {
      return print_failure("report", Failure{problem->code, "--output " + out.output + ": " + problem->message});
    }
  }
  const auto text = render(report, out.shown);
  if (!text) {
    return print_failure("report", text.error());
  }
  std::cout << text.value() << std::flush;
  return 0;
}

}  // namespace

int run_report(int argc, const char* const* argv) {
  auto cli = parse_report(argc, argv);
  if (!cli) {
    return print_failure("report", cli.error());
  }
  if (cli->help) {
    ReportCli scratch;
    std::cout << report_options(scratch)
              << "\nThe document's rows, notes, context and charts as the run would have written them; an older\n"
                 "document without its workloads' declarations gets the host's own chart per table.\n"
                 "Exit codes: 0 written (the report shows the saved run's own exit code), 1 the output could not be\n"
                 "written, 2 usage error or a file that is not a results document.\n";
    return 0;
  }
  const Expected<Report> report = read_results_file(cli->files[0]);
  if (!report) {
    return print_failure("report", report.error());
  }
  return emit(*report, cli->out);
}

}  // namespace dgx
