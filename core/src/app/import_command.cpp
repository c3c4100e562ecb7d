// The `dgxhost import FILE... [--set KEY=VALUE ...]` command line: reads each file (import/import.cpp) into one
// report and writes it with the usual reporters, as `dgxhost compare` does.
#include "import_command.hpp"

#include <iostream>

#include <boost/program_options.hpp>

#include "dgx/core/import/import.hpp"
#include "dgx/core/support/quantity.hpp"
#include "dgx/json/json.hpp"
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
  std::vector<std::string> plugin_dirs;
  bool help = false;
  bool inspect = false;
};

po::options_description import_options(ImportCli& c) {
  po::options_description d("dgxhost import FILE...: a run's own output as measured rows, read by the plugin that "
                            "knows its tool (the formats are listed below)");
  d.add_options()("help,h", po::bool_switch(&c.help), "show this help and exit")(
      "set", po::value<std::vector<std::string>>(&c.sets)->composing()->value_name("KEY=VALUE"),
      "what the file does not print (system=h100-sxm, gpus=64, model=NAME, ...); repeatable. A value that "
      "contradicts the file is an error; import.warmup=N sets the warm-up steps to drop (0 allowed)")(
      "inspect", po::bool_switch(&c.inspect),
      "print what each file says by itself (its tool, headline values, steady state, the configuration it "
      "prints) without making rows: no --set needed; --format json for a machine")(
      "plugin-dir", po::value<std::vector<std::string>>(&c.plugin_dirs)->value_name("DIR"),
      "where the plugins that read logs are (as for a run)");
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

void print_reading_text(const std::string& path, const LogReading& r) {
  std::cout << path << ": " << r.tool << (r.version.empty() ? "" : " " + r.version) << " (" << r.kind
            << (r.workload.empty() ? "" : ", " + r.workload) << "), lines " << r.lines << "\n";
  std::cout << "  timing: " << r.timing << "\n";
  if (!r.steady_state.empty()) {
    std::cout << "  steady state: " << r.steady_state << "\n";
  }
  for (const Metric& m : r.values) {
    std::cout << "  " << m.name << ": " << format_quantity(m.value, m.unit) << "\n";
  }
  for (const Field& f : r.printed) {
    std::cout << "  prints " << f.key << " = " << f.value << "\n";
  }
  for (const std::string& n : r.notes) {
    std::cout << "  note: " << n << "\n";
  }
}

json::Object reading_json(const std::string& path, const LogReading& r) {
  json::Object o;
  o.set("file", path);
  o.set("tool", r.tool);
  o.set("tool_version", r.version.empty() ? json::Value(nullptr) : json::Value(r.version));
  o.set("kind", r.kind);
  o.set("workload", r.workload);
  o.set("lines", r.lines);
  o.set("timing", r.timing);
  o.set("steady_state", r.steady_state.empty() ? json::Value(nullptr) : json::Value(r.steady_state));
  json::Array values;
  for (const Metric& m : r.values) {
    json::Object v;
    v.set("name", m.name);
    v.set("value", m.value);
    v.set("unit", m.unit);
    values.push_back(std::move(v));
  }
  o.set("values", std::move(values));
  json::Object printed;
  for (const Field& f : r.printed) {
    printed.set(f.key, f.value);
  }
  o.set("prints", std::move(printed));
  o.set("notes", json::Array(r.notes.begin(), r.notes.end()));
  return o;
}

// `import --inspect`: what each file says, before any --set; the first unreadable file ends it (exit 2).
int run_inspect(const ImportCli& cli, const LogImporter& importer) {
  if (cli.out.shown != Format::table && cli.out.shown != Format::json) {
    return print_failure("import", Failure{ExitCode::usage, "--inspect prints a table or JSON (--format json)"});
  }
  if (!cli.out.output.empty()) {
    return print_failure("import", Failure{ExitCode::usage, "--inspect prints to stdout; it takes no --output"});
  }
  json::Array readings;
  for (const std::string& path : cli.files) {
    auto reading = importer.inspect_file(path, cli.sets);
    if (!reading) {
      return print_failure("import", reading.error());
    }
    if (cli.out.shown == Format::json) {
      readings.push_back(reading_json(path, *reading));
    } else {
      print_reading_text(path, *reading);
    }
  }
  if (cli.out.shown == Format::json) {
    std::cout << json::write(readings) << "\n";
  }
  return 0;
}

}  // namespace

int run_import(int argc, const char* const* argv) {
  auto cli = parse_import(argc, argv);
  if (!cli) {
    return print_failure("import", cli.error());
  }
  Session s;
  if (auto failure = open_plugins(s, cli->plugin_dirs, cli->config_dirs, true)) {
    return print_failure("import", *failure);
  }
  const LogImporter importer = log_importer(s);
  if (cli->help) {
    ImportCli scratch;
    std::cout << import_options(scratch) << "\nFormats the loaded plugins read:\n";
    for (const FormatInfo* f : s.registry.formats()) {
      std::cout << "  " << f->name << " (" << f->plugin->name << "): " << f->summary << "\n";
    }
    std::cout << "\nExit codes: 0 imported, 2 usage error or a file that cannot be imported (empty, binary, of no "
                 "known format, truncated, a crashed run, several runs, a key missing or contradicted), 1 the "
                 "--output file could not be written.\n";
    return 0;
  }
  if (cli->inspect) {
    return run_inspect(*cli, importer);
  }
  auto report = importer.import_files(cli->files, cli->sets);
  if (!report) {
    return print_failure("import", report.error());
  }
  report->context.set("argv", command_argv(argc, argv));
  return emit_subcommand_report(*report, cli->out);
}

}  // namespace dgx
