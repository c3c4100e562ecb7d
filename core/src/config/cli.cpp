#include "dgx/core/config/cli.hpp"

#include <cctype>
#include <sstream>

#include <boost/program_options.hpp>

#include "dgx/core/config/nccl_flags.hpp"
#include "dgx/core/support/text.hpp"

namespace po = boost::program_options;

namespace dgx {

std::string_view to_string(RequestedMode mode) {
  switch (mode) {
  case RequestedMode::automatic: return "auto";
  case RequestedMode::measure: return "measure";
  case RequestedMode::project: return "project";
  case RequestedMode::explore: return "explore";
  }
  return "?";
}

// Program_options reads --mode straight into the enum (found by argument-dependent lookup).
void validate(boost::any& out, const std::vector<std::string>& values, RequestedMode*, int) {
  po::validators::check_first_occurrence(out);
  const std::string& text = po::validators::get_single_string(values);
  for (const RequestedMode mode :
       {RequestedMode::automatic, RequestedMode::measure, RequestedMode::project, RequestedMode::explore}) {
    if (text == to_string(mode)) {
      out = mode;
      return;
    }
  }
  throw po::error("--mode " + text + ": expected auto, measure, project or explore");
}

namespace {

po::options_description make_options(CliOptions& o) {
  po::options_description general("General");
  general.add_options()("help,h", po::bool_switch(&o.help), "show this help and exit")(
      "version", po::bool_switch(&o.version), "show the version, git revision and plugin ABI range, and exit")(
      "list,l", po::bool_switch(&o.list), "list plugins, workloads, presets and rejected plugin files")(
      "verbose,v", po::value<int>(&o.verbose)->implicit_value(1)->default_value(0),
      "more diagnostics on stderr")("quiet,q", po::bool_switch(&o.quiet), "only warnings and errors on stderr");

  po::options_description run("Running a workload");
  run.add_options()(
      "plugin,p", po::value<std::string>(&o.plugin)->value_name("NAME"),
      "preset, workload (e.g. all_reduce) or plugin to run (dgxhost --list shows them); 'plugin:workload' when "
      "ambiguous")("describe", po::bool_switch(&o.describe),
                   "show the workload's parameters (types, defaults, help) and exit")(
      "mode,m", po::value<RequestedMode>(&o.mode)->value_name("MODE")->default_value(RequestedMode::automatic, "auto"),
      "auto | measure | project | explore; auto measures when the workload can run here, else projects")(
      "config,c", po::value<std::vector<std::string>>(&o.config_files)->value_name("FILE")->composing(),
      "TOML config file (repeatable; later files win over earlier ones, --set wins over files)")(
      "set,s", po::value<std::vector<std::string>>(&o.sets)->value_name("KEY=VALUE")->composing(),
      "set one config key, e.g. --set spin.us=2000 (repeatable; wins over presets and files)")(
      "format", po::value<std::string>(&o.format)->value_name("FMT")->default_value("table"),
      "stdout format: table | json | csv | md | html | junit (JUnit XML for CI) | prometheus (node_exporter's "
      "textfile collector); json, junit, prometheus: stdout holds only that document")(
      "output,o", po::value<std::string>(&o.output)->value_name("FILE"),
      "also write the results to FILE (checked before the run; - is stdout); the format follows its extension "
      "(.json .csv .md .html .txt, .xml: junit, .prom: prometheus), else --format")(
      "baseline", po::value<std::string>(&o.baseline)->value_name("published|FILE"),
      "hold every row against its reference: 'published' (configs/baselines) or an earlier run's results file; "
      "a verdict per row, exit code 5 when one is below verdict.threshold (0.95)")(
      "store", po::value<std::string>(&o.store)->value_name("FILE|URL")->implicit_value("default"),
      "also record the run in a results store (dgxhost history reads it): a SQLite FILE, a postgresql:// URL, or "
      "alone the default ($DGX_STORE, else dgx-store.sqlite in the run-folder root); DGX_STORE records every run, "
      "--store=off none")("run-dir", po::value<std::string>(&o.run_dir)->value_name("DIR"),
                          "measure mode: keep the journal of finished cases and results.json in DIR (default: "
                          "$DGX_RUNS_DIR or ./dgx-runs, then <UTC time>-<workload>; DGX_RUNS_DIR=off for none)")(
      "emit", po::value<std::string>(&o.emit)->value_name("DIR"),
      "write the files the workload makes for you into DIR (created when absent): a serving workload's launch "
      "files (trtllm-serve or vllm serve and the aiperf profile command) for its pick; dgxhost writes them, never "
      "through a link")("emit-launch", po::value<std::string>(&o.emit_launch)->value_name("DIR"),
                        "deprecated: --emit DIR")(
      "resume", po::value<std::string>(&o.resume)->value_name("DIR"),
      "complete the interrupted run in DIR: run only the cases its journal lacks (alone, it repeats the run's "
      "command line; with a command line, that must resolve to the same configuration)");

  po::options_description plugins("Plugins and configs");
  plugins.add_options()("plugin-dir",
                        po::value<std::vector<std::string>>(&o.plugin_dirs)->value_name("DIR")->composing(),
                        "search DIR (or load the file) for plugins first (repeatable); then DGX_PLUGIN_PATH, then "
                        "<prefix>/lib/dgx/plugins")(
      "config-dir", po::value<std::vector<std::string>>(&o.config_dirs)->value_name("DIR")->composing(),
      "search DIR for presets and data first (repeatable); then DGX_CONFIG_PATH, then <prefix>/share/dgx/configs")(
      "allow-insecure-plugins", po::bool_switch(&o.allow_insecure_plugins),
      "load plugin files even when they or their directory are writable by group or others");

  po::options_description all;
  all.add(general).add(run).add(plugins);
  return all;
}

std::vector<std::string> option_names() {
  CliOptions scratch;
  std::vector<std::string> names;
  const po::options_description description = make_options(scratch);
  for (const auto& option : description.options()) {
    names.push_back("--" + option->long_name());
  }
  return names;
}

}  // namespace

std::string cli_help() {
  CliOptions scratch;
  std::ostringstream out;
  out << "dgxhost: measure and project the performance and cost of AI workloads on GPU platforms\n\n"
         "Usage:\n"
         "  dgxhost --list\n"
         "  dgxhost --plugin NAME [--mode MODE] [--config FILE] [--set KEY=VALUE ...] [--format FMT] [--output FILE]\n"
         "  dgxhost --plugin NAME --describe\n"
         "  dgxhost launch --nodes N --gpus-per-node G [--submit] --plugin NAME [args...]   (Slurm)\n"
         "  dgxhost compare A.json B.json [--threshold F] [--alpha P] [--format FMT] [--output FILE]\n"
         "  dgxhost import FILE... [--set KEY=VALUE ...] [--format FMT] [--output FILE]   (a run's own log as rows)\n"
         "  dgxhost verdict FILE... [--set KEY=VALUE ...] [--baseline published|FILE] [--threshold F]   (a real run\n"
         "      against the projection of its configuration and the nearest published reference)\n"
         "  dgxhost --plugin platform-check [--set KEY=VALUE ...]   (GPU node: GEMM, HBM, NCCL, a layer, a training\n"
         "      step; verdicts)\n"
         "  dgxhost store add FILE... | store info [--store FILE|URL]   (record results files or logs in the store)\n"
         "  dgxhost history [--plugin W] [--where KEY=VALUE ...] [--metric M] [--since DATE] [--detect]   (series\n"
         "      over time from the store; --detect finds regressions, exit code 5 for a new one)\n"
         "  dgxhost model show PATH/config.json|NAME [--format text|toml]   (what dgxhost understands of a model;\n"
         "      toml: the catalog file of it)\n"
         "  dgxhost report results.json [--format FMT] [--output FILE]   (a saved results file in any format)\n\n"
         "A workload may define one-letter aliases for its keys (e.g. -b 8 -e 128M -f 2 for the comm workloads);\n"
         "--describe lists them.\n\n"
      << make_options(scratch)
      << "\nExit codes: 0 success, 1 run failed, 2 usage or config error, 3 no usable plugin, 4 no usable device,\n"
         "5 correctness check failed, 6 a plugin crashed, 130 interrupted.\n";
  return out.str();
}

// Separates one-letter options that dgxhost does not define (workload aliases such as nccl-tests' -b 8 or -b8)
// from the arguments Program_options parses.
Expected<std::vector<std::string>> split_aliases(int argc, const char* const* argv, const po::options_description& d,
                                                 CliOptions& options) {
  std::vector<std::string> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string token = argv[i];
    const bool short_option =
        token.size() >= 2 && token[0] == '-' && std::isalpha(static_cast<unsigned char>(token[1]));
    if (short_option && (token[1] == 'o' || token[1] == 'c' || token[1] == 'm')) {  // nccl-tests' -o -c -m
      const std::string value = token.size() > 2 ? token.substr(2) : i + 1 < argc ? argv[i + 1] : "";
      if (auto nccl = nccl_tests_option(token.substr(1, 1), value)) {
        if (!*nccl) {
          return nccl->error();
        }
        options.aliases.push_back(nccl->value());
        if (token.size() == 2) {
          ++i;
        }
        continue;
      }
    }
    if (!short_option || d.find_nothrow(token.substr(0, 2), false) != nullptr) {
      rest.push_back(token);
      continue;
    }
    const std::string letter = token.substr(1, 1);
    if (token.size() > 2) {
      options.aliases.emplace_back(letter, token.substr(2));
    } else if (i + 1 < argc) {
      options.aliases.emplace_back(letter, argv[++i]);
    } else {
      return Failure{ExitCode::usage, "option -" + letter + " needs a value"};
    }
  }
  return rest;
}

std::optional<Failure> refuse_parser_placeholders(int argc, const char* const* argv) {
  static constexpr std::string_view kPlaceholders[] = {"%canonical_option%", "%option%", "%original_token%", "%prefix%",
                                                       "%value%"};
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    for (const std::string_view placeholder : kPlaceholders) {
      if (arg.find(placeholder) != std::string_view::npos) {
        return Failure{ExitCode::usage, "argument " + std::to_string(i) + " contains '" + std::string(placeholder) +
                                            "', which the option parser cannot report on (expected no such text)"};
      }
    }
  }
  return std::nullopt;
}

Expected<CliOptions> parse_cli(int argc, const char* const* argv) {
  if (auto refused = refuse_parser_placeholders(argc, argv)) {
    return *refused;
  }
  CliOptions options;
  for (int i = 0; i < argc; ++i) {
    options.argv.emplace_back(argv[i]);
  }
  const po::options_description description = make_options(options);
  auto rest = split_aliases(argc, argv, description, options);
  if (!rest) {
    return rest.error();
  }
  std::vector<const char*> rest_argv;
  for (const std::string& s : rest.value()) {
    rest_argv.push_back(s.c_str());
  }
  try {
    po::variables_map vm;
    const po::positional_options_description no_positionals;  // every argument is an option
    po::store(po::command_line_parser(static_cast<int>(rest_argv.size()), rest_argv.data())
                  .options(description)
                  .positional(no_positionals)
                  .run(),
              vm);
    po::notify(vm);
    if (vm.count("output") != 0 && options.output.empty()) {  // -o "": as --output= is refused by the parser
      return Failure{ExitCode::usage, "--output needs a file name (or - for stdout)"};
    }
  } catch (const po::unknown_option& e) {
    std::string message = std::string(e.what());
    std::string name = e.get_option_name();
    if (const auto suggestion = text::did_you_mean(text::close_matches(name, option_names(), 3)); !suggestion.empty()) {
      message += "; " + suggestion;
    }
    return Failure{ExitCode::usage, message + " (dgxhost --help lists the options)"};
  } catch (const po::error& e) {
    return Failure{ExitCode::usage, std::string(e.what()) + " (dgxhost --help lists the options)"};
  }
  // The names of results/format.hpp, which this layer is below (kFormatNames there).
  if (options.format != "table" && options.format != "json" && options.format != "csv" && options.format != "md" &&
      options.format != "html" && options.format != "junit" && options.format != "prometheus") {
    return Failure{ExitCode::usage,
                   "--format " + options.format + ": expected table, json, csv, md, html, junit or prometheus"};
  }
  if (!options.emit_launch.empty()) {  // the deprecated spelling (the session says so once)
    if (!options.emit.empty() && options.emit != options.emit_launch) {
      return Failure{ExitCode::usage, "--emit " + options.emit + " and --emit-launch " + options.emit_launch +
                                          " name two folders (--emit-launch is the deprecated --emit)"};
    }
    options.emit = options.emit_launch;
  }
  if (options.describe && options.plugin.empty()) {
    return Failure{ExitCode::usage, "--describe needs --plugin NAME"};
  }
  if (!options.run_dir.empty() && !options.resume.empty()) {
    return Failure{ExitCode::usage, "--run-dir and --resume exclude each other: a resumed run keeps its folder"};
  }
  return options;
}

}  // namespace dgx
