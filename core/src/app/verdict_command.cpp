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
#include "dgx/core/support/text.hpp"
#include "dgx/core/verdict/baseline.hpp"
#include "dgx/core/verdict/projection_check.hpp"
#include "dgx/json/json.hpp"
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
Expected<Report> read_run(const LogImporter& importer, const std::string& path, const std::vector<std::string>& sets) {
  auto text = read_regular_file(path, kMaxResultsFileBytes, "results file");
  if (!text) {
    return text.error();
  }
  const std::string head = text::trim(std::string_view(text.value()).substr(0, 4096));
  if (!head.empty() && head.front() == '{' && head.find("\"dgx.results/") != std::string::npos) {
    return parse_results(text.value(), path);
  }
  auto imported = importer.import_files({path}, sets);
  if (!imported) {
    return imported.error();
  }
  return imported;
}

// The run's configuration for the workload that projects it, as one typed layer (the values the file gave, never
// turned into text and parsed again): the keys its schema has (not the measurement's runner.* or the explorer's),
// the layout keys the run leaves at the frameworks' default of 1, and none the user --set (theirs come from the
// command line and win, as in a run).
ConfigLayer run_layer(const std::string& origin, const ResultRow& row, const std::vector<ParamSpec>& schema,
                      const std::vector<std::string>& layout_ones, const std::vector<std::string>& user_sets) {
  auto user_set = [&](const std::string& key) {
    return std::any_of(user_sets.begin(), user_sets.end(), [&](const std::string& set) {
      auto entry = parse_set_argument(set);
      return entry && entry->key == key;
    });
  };
  auto known = [&](const std::string& key) {
    return !text::starts_with(key, "runner.") && !text::starts_with(key, "explore.") && !user_set(key) &&
           std::any_of(schema.begin(), schema.end(), [&](const ParamSpec& p) { return p.key == key; });
  };
  ConfigLayer layer{"the run in " + origin, {}};
  for (const std::string& key : layout_ones) {
    layer.entries.push_back({key, json::Value(std::int64_t{1}), {}, {}});
  }
  for (const auto& [key, value] : row.config) {
    if (known(key) && !(value.is_array() && value.as_array().empty())) {
      layer.entries.push_back({key, value, {}, {}});
    }
  }
  return layer;
}

// The command that reproduces the projection, for the report: the run's layer and the user's --set as arguments.
std::string command_line(const std::string& workload, const ConfigLayer& layer, const std::vector<std::string>& sets) {
  std::string out = "dgxhost --plugin " + workload + " --mode project";
  for (const ConfigEntry& e : layer.entries) {
    out += " --set '" + e.key + "=" + to_toml_literal(e.value) + "'";
  }
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
      defaults.emplace_back(key);
    }
  }
  return defaults;
}

// The projection of one measured row through the ordinary run path (--mode project), the run's configuration one
// typed layer of it, or why there is none.
Projection project_row(Session& s, const CliOptions& base, const std::string& origin, const ResultRow& row,
                       const std::vector<std::string>& sets) {
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
  std::vector<std::string> layout_ones;
  const dgx_workload_kind kind = target->workload->kind;
  if (kind == DGX_KIND_PRETRAIN || kind == DGX_KIND_FINETUNE || kind == DGX_KIND_INFERENCE) {
    auto stated = stated_layout(row, kind, sets);
    if (!stated) {
      return {std::nullopt, stated.error().message, {}};
    }
    layout_ones = std::move(stated.value());
  }
  const std::vector<ParamSpec> schema = schema_for(*target->workload);
  const ConfigLayer layer = run_layer(origin, row, schema, layout_ones, sets);
  s.options = base;
  s.options.plugin = row.workload;
  s.options.sets.clear();
  for (const std::string& set : sets) {  // the user's, for the keys the workload has
    auto entry = parse_set_argument(set);
    if (entry && std::any_of(schema.begin(), schema.end(), [&](const ParamSpec& p) { return p.key == entry->key; })) {
      s.options.sets.push_back(set);
    }
  }
  s.options.mode = RequestedMode::project;
  const std::string command = command_line(row.workload, layer, s.options.sets);
  auto resolved = resolve_run(s, &layer);
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
  if (auto failure = open_plugins(s, cli->plugin_dirs, cli->config_dirs, cli->quiet)) {
    return report_failure(*failure);
  }
  const LogImporter importer = log_importer(s);
  // Every file first: an unreadable one fails before any projection, and no partial verdict is shown.
  Report report;
  Report first;
  std::vector<std::string> origins;  // the file of each row
  for (const std::string& path : cli->files) {
    auto run = read_run(importer, path, cli->sets);
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
        origins.push_back(path);
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
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    ResultRow& row = report.rows[i];
    projections.push_back(project_row(s, base, origins[i], row, cli->sets));
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
