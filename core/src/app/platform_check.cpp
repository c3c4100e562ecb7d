#include "dgx/core/app/platform_check.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <toml++/toml.h>

#include "dgx/core/config/layered_config.hpp"
#include "dgx/core/support/text.hpp"

namespace dgx {

std::string CheckStep::command() const {
  std::string out = "dgxhost --plugin " + workload;
  for (const std::string& s : sets) {
    out += " --set '" + s + "'";
  }
  return out + " --baseline published";
}

// Reading the check ------------------------------------------------------------------------------------------------

namespace {

Expected<CheckStep> step_from(const toml::table& t, const std::string& where) {
  CheckStep step;
  step.name = t["name"].value_or(std::string());
  step.why = t["why"].value_or(std::string());
  step.workload = t["workload"].value_or(std::string());
  if (step.name.empty() || step.workload.empty()) {
    return Failure{ExitCode::usage, where + ": every step needs a name and a workload"};
  }
  if (const toml::array* sets = t["set"].as_array()) {
    for (const toml::node& s : *sets) {
      const auto text = s.value<std::string>();
      if (!text || !parse_set_argument(*text)) {
        return Failure{ExitCode::usage, where + ": set entries are KEY=VALUE strings, as --set takes them"};
      }
      step.sets.push_back(*text);
    }
  }
  return step;
}

}  // namespace

Expected<PlatformCheck> parse_platform_check(std::string_view toml_text, const std::string& name) {
  toml::table root;
  try {
    root = toml::parse(toml_text, name);
  } catch (const toml::parse_error& e) {
    return Failure{ExitCode::usage, name + ": " + std::string(e.description())};
  }
  PlatformCheck check{name, true, {}};
  const std::string requires_what = root["requires"].value_or(std::string("gpu"));
  if (requires_what != "gpu" && requires_what != "none") {
    return Failure{ExitCode::usage, name + ": requires = \"" + requires_what + "\": expected \"gpu\" or \"none\""};
  }
  check.needs_gpu = requires_what == "gpu";
  const toml::array* steps = root["step"].as_array();
  if (steps == nullptr || steps->empty()) {
    return Failure{ExitCode::usage, name + ": no [[step]] tables"};
  }
  for (std::size_t i = 0; i < steps->size(); ++i) {
    const toml::table* t = (*steps)[i].as_table();
    if (t == nullptr) {
      return Failure{ExitCode::usage, name + ": [[step]] must be tables"};
    }
    auto step = step_from(*t, name + " [[step]] " + std::to_string(i + 1));
    if (!step) {
      return step.error();
    }
    check.steps.push_back(std::move(step.value()));
  }
  return check;
}

Expected<PlatformCheck> load_platform_check(const std::vector<SearchPath>& config_paths) {
  for (const SearchPath& dir : config_paths) {
    const std::filesystem::path file = dir.path / "checks" / (std::string(kPlatformCheck) + ".toml");
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      continue;
    }
    std::ostringstream content;
    content << in.rdbuf();
    return parse_platform_check(content.str(), file.string());
  }
  return Failure{ExitCode::no_plugin, "platform-check: checks/platform-check.toml is in no config directory (" +
                                          std::to_string(config_paths.size()) +
                                          " searched; --config-dir or DGX_CONFIG_PATH adds one)"};
}

namespace {

std::string step_line(std::size_t index, const CheckStep& step) {
  return std::to_string(index + 1) + ". " + step.name + (step.why.empty() ? "" : " (" + step.why + ")") + ": " +
         step.command();
}

}  // namespace

std::string describe_steps(const PlatformCheck& check) {
  std::string out;
  for (std::size_t i = 0; i < check.steps.size(); ++i) {
    out += (i == 0 ? "" : "\n") + step_line(i, check.steps[i]);
  }
  return out;
}

// The plan ---------------------------------------------------------------------------------------------------------

namespace {

// The configuration a step sets, as a row would carry it.
ResultRow step_row(const CheckStep& step) {
  ResultRow row;
  row.workload = step.workload;
  for (const std::string& s : step.sets) {
    if (auto entry = parse_set_argument(s)) {
      row.config.set(entry->key, entry->value);
    }
  }
  return row;
}

// A step's value satisfies a constraint when it, or (a list: one case per element) one of its elements, does.
bool satisfies(const Constraint& c, const json::Value& value) {
  if (!value.is_array()) {
    return c.accepts(value);
  }
  return std::any_of(value.as_array().begin(), value.as_array().end(),
                     [&](const json::Value& e) { return c.accepts(e); });
}

std::string key_name(const Constraint& c) {
  const std::string& path = c.key.path;
  if (text::starts_with(path, "info.")) {
    return path.substr(5);
  }
  if (text::starts_with(path, "metric.")) {
    return path.substr(7);
  }
  return path;
}

}  // namespace

std::vector<ResultRow> planned_references(const CheckStep& step, const std::vector<Reference>& references) {
  const ResultRow row = step_row(step);
  std::vector<ResultRow> out;
  for (const Reference& ref : references) {
    std::vector<std::string> pending;
    bool applies = true;
    for (const Constraint& c : ref.exact) {
      const json::Value value = c.key.read(row);
      if (value.is_null()) {  // only the measurement knows it
        pending.push_back(key_name(c) + " " + c.describe());
        continue;
      }
      if (!satisfies(c, value)) {
        applies = false;
        break;
      }
      if (value.is_array() && value.as_array().size() > 1) {
        pending.push_back(key_name(c) + " " + c.describe());  // the one of the step's cases it judges
      }
    }
    if (!applies) {
      continue;
    }
    for (const Constraint& c : ref.near) {
      if (c.key.read(row).is_null()) {
        pending.push_back("nearest by " + key_name(c) + " (" + c.describe() + ")");
      }
    }
    // References that only near columns tell apart tie when none of those is known: the run would pick the first.
    const std::string when = pending.empty() ? "always" : text::join(pending, ", ");
    if (std::any_of(out.begin(), out.end(), [&](const ResultRow& o) {
          return o.find_field("applies when")->value == when && o.metrics.size() == ref.values.size() &&
                 (ref.values.empty() || o.metrics.front().name == ref.values.front().metric);
        })) {
      continue;
    }
    ResultRow r;
    r.workload = step.workload;
    r.plugin = "platform-check";
    r.mode = ResultMode::reference;
    r.table = "platform-check plan";
    r.label = ref.label.empty() ? ref.origin : ref.label;
    for (const ReferenceValue& v : ref.values) {  // fractions as the measured rows print them, in %
      r.add_metric({v.metric, v.unit == "1" ? 100 * v.value : v.value, v.unit == "1" ? "%" : v.unit, false, {}});
    }
    r.add_field({"step", step.name, false});
    r.add_field({"applies when", when, false});
    r.add_field({"source", ref.source.empty() ? ref.origin : ref.source, true});
    r.add_field({"reference", ref.origin, true});
    out.push_back(std::move(r));
  }
  return out;
}

Report platform_check_plan(const PlatformCheck& check, const std::vector<Reference>& references,
                           const std::string& why_not) {
  Report report;
  std::string steps;
  for (std::size_t i = 0; i < check.steps.size(); ++i) {
    const CheckStep& step = check.steps[i];
    std::vector<ResultRow> refs = planned_references(step, references);
    steps += (i == 0 ? "" : "\n") + step_line(i, step) + "\n   " +
             (refs.empty() ? std::string("no published reference: its rows would say \"no reference\"")
                           : std::to_string(refs.size()) + " published reference row(s), below");
    for (ResultRow& r : refs) {
      report.rows.push_back(std::move(r));
    }
  }
  report.notes.push_back({true, "Platform check: what it would run (" + check.origin + ")", steps});
  report.notes.push_back(
      {false, "Not run",
       "Nothing was measured: " + why_not +
           ". The rows above are the published references (mode reference) the steps' measured rows would be "
           "held against, each at >= verdict.threshold (0.95) to pass; \"applies when\" names what only the "
           "measurement settles (the GPU's system profile, the message size, the number of ranks). On a GPU node, "
           "run it as is for one GPU, or under srun/mpirun with one rank per GPU for the collectives across the "
           "node's GPUs and across nodes."});
  report.exit_code = to_int(ExitCode::no_device);
  report.error = "platform-check needs a GPU: " + why_not;
  return report;
}

// The merged report -------------------------------------------------------------------------------------------------

Report merge_check_reports(const PlatformCheck& check, std::vector<Report> steps) {
  Report out;
  int pass = 0, fail = 0, none = 0;
  std::vector<std::string> failures;
  json::Array step_list;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    Report& step = steps[i];
    const std::string name = i < check.steps.size() ? check.steps[i].name : "step " + std::to_string(i + 1);
    if (out.context.empty()) {  // what ran where; the steps' own workloads and configurations are per row
      for (const char* key :
           {"schema", "dgxhost", "time", "host", "gpus", "gpu_summary", "software", "ranks", "nodes", "argv"}) {
        if (const json::Value* v = step.context.find(key)) {
          out.context.set(key, *v);
        }
      }
    }
    json::Object s;
    s.set("name", name);
    s.set("command", i < check.steps.size() ? check.steps[i].command() : std::string());
    s.set("exit_code", step.exit_code);
    if (!step.error.empty()) {
      s.set("error", step.error);
    }
    step_list.push_back(std::move(s));
    for (ResultRow& r : step.rows) {
      if (const Field* v = r.find_field("verdict"); v != nullptr && r.mode != ResultMode::reference) {
        if (v->value == "pass") {
          ++pass;
        }
        if (v->value == "no reference") {
          ++none;
        }
        if (v->value == "fail") {
          ++fail;
        }
      }
      out.rows.push_back(std::move(r));
    }
    for (Note& n : step.notes) {
      if (n.title != "Verdict") {
        out.notes.push_back({n.before, name + ": " + n.title, std::move(n.text)});
      }
    }
    if (step.exit_code != 0) {
      failures.push_back(name + ": " +
                         (step.error.empty() ? "exit code " + std::to_string(step.exit_code) : step.error));
      // A step that failed to run outranks a row below its reference; otherwise the first failure decides.
      const bool verdict_only = step.exit_code == to_int(ExitCode::check_failed);
      if (out.exit_code == 0 || (out.exit_code == to_int(ExitCode::check_failed) && !verdict_only)) {
        out.exit_code = step.exit_code;
      }
    }
  }
  out.context.set("workload", std::string(kPlatformCheck));
  out.context.set("mode", "measure");
  out.context.set("platform_check", std::move(step_list));
  std::string verdict = std::to_string(pass) + " pass, " + std::to_string(fail) + " fail, " + std::to_string(none) +
                        " no reference over " + std::to_string(steps.size()) +
                        " steps: each measured row against published references (configs/baselines), pass at >= "
                        "verdict.threshold of the reference.";
  verdict += fail == 0 && failures.empty() ? "\nEvery step ran, and no row is below its reference."
                                           : "\nNot every step ran or reached its reference:";
  for (const std::string& f : failures) {
    verdict += "\n  " + f;
  }
  out.notes.push_back({false, "Platform check verdict", verdict});
  if (out.exit_code != 0) {
    out.error = text::join(failures, "; ");
  }
  return out;
}

}  // namespace dgx
