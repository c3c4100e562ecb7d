#include "subcommand.hpp"

#include <iostream>

#include "dgx/core/report/reporters.hpp"
#include "dgx/core/results/output_path.hpp"

namespace po = boost::program_options;

namespace dgx {

void add_output_options(po::options_description& options, SubcommandOutput& out, const std::string& what) {
  const std::string output_help = "also write " + what + " to FILE; the format follows its extension (" +
                                  std::string(kFormatExtensions) + ": .xml is junit, .prom prometheus)";
  options.add_options()("format", po::value<std::string>(&out.format)->default_value("table")->value_name("FMT"),
                        "stdout format: table | json | csv | md | html | junit (JUnit XML for CI) | prometheus "
                        "(node_exporter's textfile collector)")("output,o",
                                                                po::value<std::string>(&out.output)->value_name("FILE"),
                                                                output_help.c_str());  // Boost copies the text
}

void add_config_dir_option(po::options_description& options, std::vector<std::string>& dirs) {
  options.add_options()("config-dir", po::value<std::vector<std::string>>(&dirs)->composing()->value_name("DIR"),
                        "search DIR for catalog files (models/, systems/, ...) first, as for a run; repeatable");
}

std::optional<Failure> check_output(const po::variables_map& vm, SubcommandOutput& out, const std::string& command) {
  if (vm.count("output") != 0 && out.output.empty()) {
    return Failure{ExitCode::usage, command + ": --output needs a file name (or - for stdout)"};
  }
  const auto shown = format_from_name(out.format);
  if (!shown) {
    return Failure{ExitCode::usage, "--format " + out.format + ": expected " + std::string(kFormatNames)};
  }
  out.shown = *shown;
  out.written = *shown;
  if (out.output.empty()) {
    return std::nullopt;
  }
  auto written = output_format(out.output, *shown);  // a typo in -o fails before any work, naming the reason
  if (!written) {
    return written.error();
  }
  if (auto problem = check_output_path(out.output)) {
    return problem;
  }
  out.written = written.value();
  return std::nullopt;
}

std::optional<Failure> parse_subcommand(int argc, const char* const* argv, const po::options_description& options,
                                        SubcommandOutput& out, const std::string& command, int max_files,
                                        std::vector<std::string>* files) {
  po::options_description all;
  all.add(options);
  po::positional_options_description positional;
  if (files != nullptr) {  // positional only: --help shows the options a user types
    all.add_options()("files", po::value<std::vector<std::string>>(files));
    positional.add("files", max_files);
  }
  try {
    po::variables_map vm;
    po::store(po::command_line_parser(argc, argv).options(all).positional(positional).run(), vm);
    po::notify(vm);
    return check_output(vm, out, command);
  } catch (const po::error& e) {
    return Failure{ExitCode::usage, command + ": " + e.what() + " (dgxhost " + command + " --help)"};
  }
}

int emit_subcommand_report(Report& report, const SubcommandOutput& out) {
  if (!out.output.empty() && out.output != kStdoutPath) {
    if (auto problem = write_report(report, out.written, out.output)) {
      const std::string message = "--output " + out.output + ": " + problem->message;
      std::cerr << "dgxhost: " << message << "\n";
      report.error = report.exit_code == 0 ? message : report.error + "; " + message;
      if (report.exit_code == 0) {
        report.exit_code = to_int(problem->code);
      }
    }
  }
  const auto text = render(report, out.shown);
  if (!text) {
    std::cerr << "dgxhost: " << text.error().message << "\n";
    return report.exit_code == 0 ? to_int(text.error().code) : report.exit_code;
  }
  std::cout << text.value() << std::flush;
  if (report.exit_code != 0 && out.shown != Format::table) {
    std::cerr << "dgxhost: " << report.error << "\n";
  }
  return report.exit_code;
}

json::Object subcommand_context(const std::string& workload, int argc, const char* const* argv) {
  json::Object context;
  context.set("dgxhost", dgxhost_identity());
  context.set("workload", workload);
  context.set("argv", command_argv(argc, argv));
  return context;
}

json::Array command_argv(int argc, const char* const* argv) {
  json::Array args;
  args.push_back("dgxhost");
  for (int i = 0; i < argc; ++i) {
    args.push_back(argv[i]);
  }
  return args;
}

int print_failure(const std::string& prefix, const Failure& failure) {
  std::cerr << "dgxhost: " << prefix << ": " << failure.message << "\n";
  return to_int(failure.code);
}

}  // namespace dgx
