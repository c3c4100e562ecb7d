#include "dgx/core/app/platform_check.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "dgx/catalog/catalog_files.hpp"
#include "dgx/catalog/toml_table.hpp"
#include "dgx/core/config/layered_config.hpp"
#include "dgx/core/support/text.hpp"
#include "dgx/core/verdict/reference_match.hpp"

namespace dgx {

std::vector<std::string> CheckStep::sets_on(std::string_view system) const {
  std::vector<std::string> out = sets;
  for (const SystemSets& s : on) {
    if (!system.empty() && s.system == system) {
      out.insert(out.end(), s.sets.begin(), s.sets.end());
    }
  }
  return out;
}

std::string CheckStep::command(std::string_view system) const {
  std::string out = "dgxhost --plugin " + workload;
  for (const std::string& s : sets_on(system)) {
    out += " --set '" + s + "'";
  }
  return out + " --baseline published";
}

// Reading the check ------------------------------------------------------------------------------------------------

namespace {

using catalog::ConfigError;
using catalog::TomlTable;

// A table's `set` array: KEY=VALUE strings, as --set takes them.
std::vector<std::string> sets_from(const TomlTable& t) {
  if (!t.contains("set")) {
    return {};
  }
  std::vector<std::string> sets = t.strings("set");
  for (const std::string& text : sets) {
    if (!parse_set_argument(text)) {
      throw ConfigError(t.where("set") + ": \"" + text + "\" is not KEY=VALUE, as --set takes it");
    }
  }
  return sets;
}

CheckStep step_from(const TomlTable& t) {
  CheckStep step;
  step.name = t.string("name");
  step.why = t.optional_string("why").value_or("");
  step.workload = t.string("workload");
  step.sets = sets_from(t);
  if (t.contains("on")) {
    const TomlTable on = t.table("on");
    for (const std::string& system : on.keys()) {
      step.on.push_back({system, sets_from(on.table(system))});
    }
  }
  return step;
}

PlatformCheck read_check(const TomlTable& root) {
  PlatformCheck check{root.file(), true, {}};
  const std::string requires_what = root.optional_string("requires").value_or("gpu");
  if (requires_what != "gpu" && requires_what != "none") {
    throw ConfigError(root.where("requires") + " is \"" + requires_what + "\": expected \"gpu\" or \"none\"");
  }
  check.needs_gpu = requires_what == "gpu";
  for (const TomlTable& t : root.tables("step")) {
    check.steps.push_back(step_from(t));
  }
  if (check.steps.empty()) {
    throw ConfigError(root.position() + ": no [[step]] tables");
  }
  return check;
}

}  // namespace

Expected<PlatformCheck> parse_platform_check(std::string_view toml_text, const std::string& name) {
  auto check = catalog::read_toml(toml_text, name, read_check);
  if (!check) {
    return Failure{ExitCode::usage, check.error().message};
  }
  return std::move(check).value();
}

Expected<PlatformCheck> load_platform_check() {
  const std::string relative = "checks/" + std::string(kPlatformCheck) + ".toml";
  auto file = catalog::find_catalog_file(relative);
  if (!file) {
    return Failure{ExitCode::usage, file.error().message};
  }
  if (!*file) {
    return Failure{ExitCode::no_plugin, "platform-check: " + relative +
                                            " is in no config directory and not compiled in (--config-dir or "
                                            "DGX_CONFIG_PATH adds one)"};
  }
  return parse_platform_check((*file)->text, (*file)->label);
}

namespace {

std::string step_line(std::size_t index, const CheckStep& step) {
  std::string out = std::to_string(index + 1) + ". " + step.name + (step.why.empty() ? "" : " (" + step.why + ")") +
                    ": " + step.command();
  for (const SystemSets& s : step.on) {
    out += "\n   on " + s.system + " it adds:";
    for (const std::string& set : s.sets) {
      out += " --set '" + set + "'";
    }
  }
  return out;
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

// The configuration a step sets on `system`, as a row would carry it: a one-element list as its element, and the
// system as the rows' field (what the GPU's profile names) and, unless the step sets one, as config key `system`
// (what llm-pretrain's measure mode sets: the GPU's system replaces the configured one).
ResultRow step_row(const CheckStep& step, std::string_view system) {
  ResultRow row;
  row.workload = step.workload;
  for (const std::string& s : step.sets_on(system)) {
    if (auto entry = parse_set_argument(s)) {
      const json::Value& v = entry->value;
      row.config.set(entry->key, v.is_array() && v.as_array().size() == 1 ? v.as_array().front() : v);
    }
  }
  if (!system.empty()) {
    row.add_field({"system", std::string(system), false});
    if (!row.config.contains("system")) {
      row.config.set("system", std::string(system));
    }
  }
  return row;
}

bool constrained(const std::string& key, const std::vector<Reference>& references) {
  return std::any_of(references.begin(), references.end(), [&](const Reference& r) {
    auto names = [&](const Constraint& c) { return c.key.config_key() == key; };
    return std::any_of(r.exact.begin(), r.exact.end(), names) || std::any_of(r.near.begin(), r.near.end(), names);
  });
}

// The cases of a step: one per element of a list a reference constrains (precision = ["bf16", "fp8"]: two), as the
// workload runs one case per element; `label` names what the case fixed.
struct PlannedCase {
  ResultRow row;
  std::vector<std::string> label;
};

std::vector<PlannedCase> step_cases(const ResultRow& row, const std::vector<Reference>& references) {
  std::vector<PlannedCase> out{{row, {}}};
  for (const auto& [key, value] : row.config) {
    if (!value.is_array() || !constrained(key, references)) {
      continue;
    }
    std::vector<PlannedCase> split;
    for (const PlannedCase& c : out) {
      for (const json::Value& e : value.as_array()) {
        PlannedCase one = c;
        one.row.config.set(key, e);
        one.label.push_back(key + " " + (e.is_string() ? e.as_string() : json::write(e, 0)));
        split.push_back(std::move(one));
      }
    }
    out = std::move(split);
  }
  return out;
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

// What only the measurement settles about `ref` for `row` ("size >= 1073741824"), or nullopt when `ref` cannot apply.
std::optional<std::vector<std::string>> pending_of(const ResultRow& row, const Reference& ref) {
  std::vector<std::string> pending;
  for (const Constraint& c : ref.exact) {
    const json::Value value = c.key.read(row);
    if (value.is_null()) {  // only the measurement knows it
      pending.push_back(key_name(c) + " " + c.describe());
      continue;
    }
    if (!satisfies(c, value)) {
      return std::nullopt;
    }
    if (value.is_array() && value.as_array().size() > 1) {
      pending.push_back(key_name(c) + " " + c.describe());  // the one of the step's cases it judges
    }
  }
  for (const Constraint& c : ref.near) {
    if (c.key.read(row).is_null()) {
      pending.push_back("nearest by " + key_name(c) + " (" + c.describe() + ")");
    }
  }
  return pending;
}

ResultRow plan_row(const CheckStep& step, const Reference& ref, const std::string& when, bool per_gpu_only) {
  ResultRow r;
  r.workload = step.workload;
  r.plugin = "platform-check";
  r.mode = ResultMode::reference;
  r.table = "platform-check plan";
  r.label = ref.label.empty() ? ref.origin : ref.label;
  for (const ReferenceValue& v : ref.values) {  // fractions as the measured rows print them, in %
    if (!per_gpu_only || v.per_gpu) {
      r.add_metric({v.metric, v.unit == "1" ? 100 * v.value : v.value, v.unit == "1" ? "%" : v.unit, false, {}});
    }
  }
  r.add_field({"step", step.name, false});
  r.add_field({"applies when", when, false});
  r.add_field({"source", ref.source.empty() ? ref.origin : ref.source, true});
  r.add_field({"reference", ref.origin, true});
  return r;
}

bool same_plan_row(const ResultRow& a, const ResultRow& b) {
  return a.find_field("applies when")->value == b.find_field("applies when")->value &&
         a.metrics.size() == b.metrics.size() &&
         (a.metrics.empty() || a.metrics.front().name == b.metrics.front().name);
}

// The reference a case whose configuration settles every constraint would be held against: find_reference's pick
// among `settled`, with what differs when it is a nearest one; nothing when no value of it would be compared.
void add_settled(const CheckStep& step, const PlannedCase& c, const std::vector<Reference>& settled,
                 std::vector<ResultRow>& out) {
  const auto match = find_reference(c.row, settled);
  if (!match || !match->comparable()) {
    return;  // the verdict: no (comparable) reference
  }
  const bool per_gpu_only = !match->exact();
  if (per_gpu_only && std::none_of(match->reference->values.begin(), match->reference->values.end(),
                                   [](const ReferenceValue& v) { return v.per_gpu; })) {
    return;  // a nearest reference offers only per-GPU values, and this one has none
  }
  std::vector<std::string> when = c.label, nearest;
  for (const Difference& d : match->differences) {
    nearest.push_back((text::starts_with(d.key, "info.") ? d.key.substr(5) : d.key) + " " + d.reference);
  }
  if (!nearest.empty()) {
    when.push_back("nearest published run: " + text::join(nearest, ", "));
  }
  out.push_back(plan_row(step, *match->reference, when.empty() ? "always" : text::join(when, ", "), per_gpu_only));
}

}  // namespace

std::vector<ResultRow> planned_references(const CheckStep& step, const std::vector<Reference>& references,
                                          std::string_view system) {
  std::vector<ResultRow> out;
  for (const PlannedCase& c : step_cases(step_row(step, system), references)) {
    std::vector<Reference> settled;
    for (const Reference& ref : references) {
      const auto pending = pending_of(c.row, ref);
      if (!pending) {
        continue;
      }
      if (pending->empty()) {
        settled.push_back(ref);
        continue;
      }
      // References that only near columns tell apart tie when none of those is known: the run would pick the first.
      std::vector<std::string> when = c.label;
      when.insert(when.end(), pending->begin(), pending->end());
      ResultRow r = plan_row(step, ref, text::join(when, ", "), false);
      if (std::none_of(out.begin(), out.end(), [&](const ResultRow& o) { return same_plan_row(o, r); })) {
        out.push_back(std::move(r));
      }
    }
    if (!settled.empty()) {
      add_settled(step, c, settled, out);
    }
  }
  return out;
}

namespace {

// The systems that share one step's references.
struct SystemGroup {
  std::vector<std::string> systems;
  std::vector<ResultRow> rows;
  std::string signature;
};

std::string signature_of(const std::vector<ResultRow>& rows) {
  std::string out;
  for (const ResultRow& r : rows) {
    out += r.find_field("reference")->value + "|" + r.find_field("applies when")->value + "|" +
           std::to_string(r.metrics.size()) + "\n";
  }
  return out;
}

std::vector<SystemGroup> group_systems(const CheckStep& step, const std::vector<Reference>& references,
                                       const std::vector<std::string>& systems, std::vector<std::string>& none) {
  std::vector<SystemGroup> groups;
  for (const std::string& system : systems.empty() ? std::vector<std::string>{""} : systems) {
    std::vector<ResultRow> rows = planned_references(step, references, system);
    if (rows.empty()) {
      none.push_back(system);
      continue;
    }
    const std::string signature = signature_of(rows);
    auto same =
        std::find_if(groups.begin(), groups.end(), [&](const SystemGroup& g) { return g.signature == signature; });
    if (same == groups.end()) {
      groups.push_back({{system}, std::move(rows), signature});
    } else {
      same->systems.push_back(system);
    }
  }
  return groups;
}

ResultRow no_reference_row(const CheckStep& step, const std::vector<std::string>& systems) {
  ResultRow r;
  r.workload = step.workload;
  r.plugin = "platform-check";
  r.mode = ResultMode::reference;
  r.table = "platform-check plan";
  r.label = "no reference";
  r.add_field({"step", step.name, false});
  r.add_field({"systems", text::join(systems, ", "), false});
  r.add_field(
      {"applies when", "never: nothing is published for these systems (the rows would say \"no reference\")", false});
  return r;
}

// One step of the plan: its rows into `rows`, its lines of the note returned.
std::string plan_step(std::size_t index, const CheckStep& step, const std::vector<Reference>& references,
                      const std::vector<std::string>& systems, std::vector<ResultRow>& rows) {
  std::vector<std::string> none;
  std::string out = step_line(index, step);
  for (SystemGroup& g : group_systems(step, references, systems, none)) {
    const std::string names = g.systems.front().empty() ? "any system" : text::join(g.systems, ", ");
    out += "\n   on " + names + ": " + std::to_string(g.rows.size()) + " reference row(s)";
    for (ResultRow& r : g.rows) {
      r.fields.insert(r.fields.begin() + 1, Field{"systems", names, false});
      rows.push_back(std::move(r));
    }
  }
  if (none.empty()) {
    return out;
  }
  if (none.front().empty()) {
    return out + "\n   no published reference: its rows would say \"no reference\"";
  }
  rows.push_back(no_reference_row(step, none));
  return out + "\n   no reference for " + text::join(none, ", ");
}

}  // namespace

Report platform_check_plan(const PlatformCheck& check, const std::vector<Reference>& references,
                           const std::vector<std::string>& systems, const std::string& why_not) {
  Report report;
  std::string steps;
  for (std::size_t i = 0; i < check.steps.size(); ++i) {
    steps += (i == 0 ? "" : "\n") + plan_step(i, check.steps[i], references, systems, report.rows);
  }
  report.notes.push_back({true, "Platform check: what it would run (" + check.origin + ")", steps});
  report.notes.push_back(
      {false, "Not run",
       "Nothing was measured: " + why_not +
           ". The rows above are the published references (mode reference) the steps' measured rows would be "
           "held against on each system of the catalog (\"systems\"), each at >= verdict.threshold (0.95) to pass; "
           "\"applies when\" names what only the measurement settles (the message size, the number of ranks) and, "
           "for a nearest published run, what differs from it (then only its per-GPU values are compared). A "
           "source says whether the number was published or derived from published ones, and how. On a GPU node, "
           "run it as is for one GPU, or under srun/mpirun with one rank per GPU for the collectives across the "
           "node's GPUs and across nodes."});
  report.exit_code = to_int(ExitCode::no_device);
  report.error = "platform-check needs a GPU: " + why_not;
  return report;
}

// The merged report -------------------------------------------------------------------------------------------------

std::string system_of(const std::vector<Report>& steps) {
  for (const Report& step : steps) {
    for (const ResultRow& r : step.rows) {
      if (const Field* f = r.find_field("system"); f != nullptr && !f->value.empty()) {
        return f->value;
      }
    }
  }
  return {};
}

namespace {

// "STEP: no reference for SYSTEM (N rows)" for a step whose measured rows found none.
std::string no_reference_line(const std::string& step, const Report& report) {
  int rows = 0;
  std::string system;
  for (const ResultRow& r : report.rows) {
    const Field* v = r.find_field("verdict");
    if (v == nullptr || v->value != "no reference" || r.mode == ResultMode::reference) {
      continue;
    }
    ++rows;
    if (const Field* f = r.find_field("system"); f != nullptr && system.empty()) {
      system = f->value;
    }
  }
  if (rows == 0) {
    return {};
  }
  return step + ": no reference for " + (system.empty() ? std::string("this system") : system) + " (" +
         std::to_string(rows) + (rows == 1 ? " row)" : " rows)");
}

}  // namespace

Report merge_check_reports(const PlatformCheck& check, std::vector<Report> steps) {
  Report out;
  int pass = 0, fail = 0, none = 0;
  std::vector<std::string> failures, unreferenced;
  json::Array step_list;
  const std::string system = system_of(steps);
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
    s.set("command", i < check.steps.size() ? check.steps[i].command(system) : std::string());
    if (std::string line = no_reference_line(name, step); !line.empty()) {
      unreferenced.push_back(std::move(line));
    }
    s.set("exit_code", step.exit_code);
    if (!step.error.empty()) {
      s.set("error", step.error);
    }
    step_list.push_back(std::move(s));
    for (WorkloadDeclarations& d : step.workloads) {
      add_declarations(out.workloads, std::move(d));
    }
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
  for (const std::string& u : unreferenced) {
    verdict += "\n" + u;
  }
  out.notes.push_back({false, "Platform check verdict", verdict});
  if (out.exit_code != 0) {
    out.error = text::join(failures, "; ");
  }
  return out;
}

}  // namespace dgx
