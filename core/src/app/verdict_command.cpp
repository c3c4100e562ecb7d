#include "verdict_command.hpp"

#include <algorithm>
#include <iostream>

#include <boost/program_options.hpp>

#include "dgx/core/app/plugin_option.hpp"
#include "dgx/core/config/toml_reader.hpp"
#include "dgx/core/import/import.hpp"
#include "dgx/core/results/document_reader.hpp"
#include "dgx/core/run/run_layers.hpp"
#include "dgx/core/support/files.hpp"
#include "dgx/core/support/json.hpp"
#include "dgx/core/support/text.hpp"
#include "dgx/core/verdict/baseline.hpp"
#include "dgx/core/verdict/projection_check.hpp"
#include "run_command.hpp"
#include "session.hpp"
#include "subcommand.hpp"

namespace po = boost::program_options;

namespace dgx {

namespace {

struct VerdictCli {
  std::vector<std::string> files;
  std::vector<std::string> sets;
  std::string baseline = "published";
  double threshold = kDefaultVerdictThreshold;
  SubcommandOutput out;
  std::vector<std::string> plugin_dirs;
  std::vector<std::string> config_dirs;
  bool help = false;
  bool quiet = false;
};

po::options_description verdict_options(VerdictCli& c) {
  po::options_description d("dgxhost verdict FILE...: a real run against the projection of its configuration and "
                            "the nearest published reference");
  d.add_options()("help,h", po::bool_switch(&c.help), "show this help and exit")(
      "set", po::value<std::vector<std::string>>(&c.sets)->value_name("KEY=VALUE"),
      "what the file does not say (e.g. system=h100-sxm, framework=nemo-25.09); repeatable")(
      "baseline", po::value<std::string>(&c.baseline)->default_value("published")->value_name("SPEC"),
      "the references: published (configs/baselines) or a results file of an earlier run")(
      "threshold", po::value<double>(&c.threshold)->default_value(kDefaultVerdictThreshold)->value_name("F"),
      "pass at or above this fraction of the reference (verdict.threshold)")(
      "plugin-dir", po::value<std::vector<std::string>>(&c.plugin_dirs)->value_name("DIR"),
      "where the plugins that project are (as for a run)")("quiet,q", po::bool_switch(&c.quiet),
                                                           "only warnings and errors on stderr");
  add_output_options(d, c.out, "the verdict");
  add_config_dir_option(d, c.config_dirs);
  return d;
}

Expected<VerdictCli> parse_verdict(int argc, const char* const* argv) {
  VerdictCli c;
  po::options_description d = verdict_options(c);
  if (auto problem = parse_subcommand(argc, argv, d, c.out, "verdict", -1, &c.files)) {
    return *problem;
  }
  if (c.help) {
    return c;
  }
  if (c.files.empty()) {
    return Failure{ExitCode::usage, "verdict needs a results file or a log: dgxhost verdict FILE... (--help)"};
  }
  if (!(c.threshold > 0 && c.threshold <= 10)) {
    return Failure{ExitCode::usage, "--threshold must be in (0, 10], e.g. 0.95"};
  }
  for (const std::string& set : c.sets) {
    if (auto entry = parse_set_argument(set); !entry) {
      return Failure{ExitCode::usage, "verdict: --set " + set + ": " + entry.error().message};
    }
  }
  return c;
}

// A results document, or a file `dgxhost import` reads. JSON of another schema (an AIPerf or vLLM export) is
// imported; a dgx.results document that does not parse is an error of its own.
Expected<Report> read_run(const std::string& path, const std::vector<std::string>& sets) {
  auto text = read_regular_file(path, kMaxResultsFileBytes, "results file");
  if (!text) {
    return text.error();
  }
  const std::string head = text::trim(std::string_view(text.value()).substr(0, 4096));
  if (!head.empty() && head.front() == '{' && head.find("\"dgx.results/") != std::string::npos) {
    return parse_results(text.value(), path);
  }
  auto imported = import_files({path}, sets);
  if (!imported) {
    return imported.error();
  }
  return imported;
}

// --set entries of a row's configuration for the workload that projects it: the keys its schema has (not the
// measurement's runner.* or the explorer's), then the command line's.
std::vector<std::string> projection_sets(const ResultRow& row, const std::vector<ParamSpec>& schema,
                                         const std::vector<std::string>& user_sets) {
  auto known = [&](const std::string& key) {
    return !text::starts_with(key, "runner.") && !text::starts_with(key, "explore.") &&
           std::any_of(schema.begin(), schema.end(), [&](const ParamSpec& p) { return p.key == key; });
  };
  std::vector<std::string> sets;
  for (const auto& [key, value] : row.config) {
    if (known(key) && !(value.is_array() && value.as_array().empty())) {
      sets.push_back(key + "=" + to_toml_literal(value));
    }
  }
  for (const std::string& set : user_sets) {
    if (auto entry = parse_set_argument(set); entry && known(entry->key)) {
      sets.push_back(set);
    }
  }
  return sets;
}

std::string command_line(const std::string& workload, const std::vector<std::string>& sets) {
  std::string out = "dgxhost --plugin " + workload + " --mode project";
  for (const std::string& set : sets) {
    out += " --set '" + set + "'";
  }
  return out;
}

bool states(const ResultRow& row, const std::vector<std::string>& user_sets, const std::string& key) {
  if (row.config.find(key) != nullptr) {
    return true;
  }
  return std::any_of(user_sets.begin(), user_sets.end(), [&](const std::string& set) {
    auto entry = parse_set_argument(set);
    return entry && entry->key == key;
  });
}

// A run is projected at its own layout, never at one the plugin would choose: a training run needs its TP and PP, a
// serving run its TP and precision (a benchmark client does not know the server's), from the file or --set, else
// there is no projection and the message says what to add. The rest a log leaves out are the frameworks'
// defaults, 1, named among the projection's assumptions.
Expected<std::vector<std::string>> stated_layout(const ResultRow& row, dgx_workload_kind kind,
                                                 const std::vector<std::string>& user_sets) {
  const bool serving = kind == DGX_KIND_INFERENCE;
  const std::vector<const char*> needed = serving ? std::vector<const char*>{"parallel.tp", "precision"}
                                                  : std::vector<const char*>{"parallel.tp", "parallel.pp"};
  const std::vector<const char*> ones =
      serving ? std::vector<const char*>{"parallel.pp", "parallel.ep"}
              : std::vector<const char*>{"parallel.cp", "parallel.vp", "parallel.ep", "train.mbs"};
  std::vector<std::string> missing;
  for (const char* key : needed) {
    if (!states(row, user_sets, key)) {
      missing.emplace_back(key);
    }
  }
  if (!missing.empty()) {
    return Failure{ExitCode::usage,
                   std::string("the run does not say ") + (serving ? "how the server ran (" : "its parallel layout (") +
                       text::join(missing, ", ") + "): add --set " + text::join(missing, "=... --set ") + "=..." +
                       (serving ? "" : " (and parallel.cp, parallel.vp, train.mbs where they are not 1)")};
  }
  std::vector<std::string> defaults;
  for (const char* key : ones) {
    if (!states(row, user_sets, key)) {
      defaults.push_back(std::string(key) + "=1");
    }
  }
  return defaults;
}

// The projection of one measured row through the ordinary run path (--mode project), or why there is none.
Projection project_row(Session& s, const CliOptions& base, const ResultRow& row, const std::vector<std::string>& sets) {
  auto target = resolve_name(s.registry, row.workload);
  if (!target) {
    return {std::nullopt, "no plugin projects " + row.workload + ": " + target.error().message, {}};
  }
  if (!target->workload->supports(DGX_MODE_PROJECT)) {
    return {std::nullopt,
            row.workload + " only measures (" + target->workload->mode_list() +
                "): it has no model to project with; the published reference judges it",
            {}};
  }
  std::vector<std::string> layout;
  const dgx_workload_kind kind = target->workload->kind;
  if (kind == DGX_KIND_PRETRAIN || kind == DGX_KIND_FINETUNE || kind == DGX_KIND_INFERENCE) {
    auto stated = stated_layout(row, kind, sets);
    if (!stated) {
      return {std::nullopt, stated.error().message, {}};
    }
    layout = std::move(stated.value());
  }
  s.options = base;
  s.options.plugin = row.workload;
  s.options.sets = layout;
  for (std::string& set : projection_sets(row, schema_for(*target->workload), sets)) {
    s.options.sets.push_back(std::move(set));
  }
  s.options.mode = RequestedMode::project;
  const std::string command = command_line(row.workload, s.options.sets);
  auto resolved = resolve_run(s);
  if (!resolved) {
    return {std::nullopt, resolved.error().message, command};
  }
  Report projected;
  const auto& [resolved_target, resolution] = resolved.value();
  if (auto code = run_to_report(s, resolved_target, resolution.config, projected, nullptr)) {
    return {std::nullopt, "the projection ended with exit code " + std::to_string(*code), command};
  }
  for (ResultRow& r : projected.rows) {
    if (r.mode == ResultMode::projected) {
      return {std::move(r), {}, command};
    }
  }
  return {std::nullopt, projected.error.empty() ? "the projection returned no row" : projected.error, command};
}

json::Object verdict_context(const VerdictCli& c, int argc, const char* const* argv, const Report& first) {
  json::Object context = subcommand_context("verdict", argc, argv);
  json::Object verdict;
  verdict.set("files", json::Array(c.files.begin(), c.files.end()));
  verdict.set("baseline", c.baseline);
  verdict.set("threshold", c.threshold);
  verdict.set("sets", json::Array(c.sets.begin(), c.sets.end()));
  context.set("verdict", std::move(verdict));
  if (!first.context.empty()) {
    context.set("judged", first.context);  // what the first file says of its run (an import: the tool)
  }
  return context;
}

int report_failure(const Failure& failure) {
  std::cerr << "dgxhost: verdict: " << failure.message << "\n";
  return to_int(failure.code);
}

}  // namespace

int run_verdict(int argc, const char* const* argv) {
  auto cli = parse_verdict(argc, argv);
  if (!cli) {
    return report_failure(cli.error());
  }
  if (cli->help) {
    VerdictCli scratch;
    std::cout << verdict_options(scratch)
              << "\nExit codes: 0 every run as fast as its projection and its reference, 2 a file that cannot be "
                 "read or imported, 5 a run slower than the projection of its configuration (beyond the "
                 "projection's band) or below --threshold of its reference.\n";
    return 0;
  }
  Session s;
  s.options.argv.assign(argv, argv + argc);
  s.options.plugin_dirs = cli->plugin_dirs;
  s.options.config_dirs = cli->config_dirs;
  s.logger.configure(cli->quiet ? DGX_LOG_WARNING : DGX_LOG_INFO, false);
  s.comm = std::make_unique<LocalComm>();
  if (auto failure = discover_plugins(s)) {
    return report_failure(*failure);
  }
  // Every file first: an unreadable one fails before any projection, and no partial verdict is shown.
  Report report;
  Report first;
  for (const std::string& path : cli->files) {
    auto run = read_run(path, cli->sets);
    if (!run) {
      return report_failure(run.error());
    }
    if (run->exit_code != 0) {
      return report_failure(
          {ExitCode::usage, path + ": the run it holds failed (" + run->error + "): a failed run gets no verdict"});
    }
    if (first.context.empty()) {
      first.context = run->context;
    }
    for (WorkloadDeclarations& d : run->workloads) {
      add_declarations(report.workloads, std::move(d));
    }
    for (ResultRow& row : run->rows) {
      if (row.mode == ResultMode::measured) {
        for (Field& f : row.fields) {
          f.hidden = true;  // the run's own fields stay in JSON; the table shows the verdicts
        }
        report.rows.push_back(std::move(row));
      }
    }
  }
  if (report.rows.empty()) {
    return report_failure({ExitCode::usage, "no measured or imported row in " + text::join(cli->files, ", ") +
                                                ": a verdict judges runs, not projections"});
  }
  auto baseline = load_baseline(cli->baseline);
  if (!baseline) {
    return report_failure(baseline.error());
  }
  const CliOptions base = s.options;
  std::vector<Projection> projections;
  for (ResultRow& row : report.rows) {
    projections.push_back(project_row(s, base, row, cli->sets));
    if (projections.back().row) {
      fill_assumed(row, *projections.back().row);  // before the reference match: it compares these keys too
    }
  }
  s.options = base;
  s.registry.declare_rows(report);  // what the plugins say of rows their files do not describe (an import)
  apply_baseline(report, baseline.value(), cli->threshold);
  apply_projections(report, projections);
  report.context = verdict_context(*cli, argc, argv, first);

  return emit_subcommand_report(report, cli->out);
}

}  // namespace dgx
