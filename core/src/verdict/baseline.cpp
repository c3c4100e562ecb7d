#include "dgx/core/verdict/baseline.hpp"

#include <algorithm>
#include <map>

#include "dgx/core/results/document_reader.hpp"
#include "dgx/core/support/quantity.hpp"
#include "dgx/core/support/text.hpp"
#include "dgx/core/verdict/reference_match.hpp"

namespace dgx {

std::vector<ParamSpec> verdict_params() {
  return {{"verdict.threshold",
           ParamType::floating,
           kDefaultVerdictThreshold,
           "--baseline: a row passes at >= this fraction of its reference (0.95: 95%), fails below",
           {},
           {},
           false,
           {}}};
}

Expected<double> verdict_threshold(const ResolvedConfig& config) {
  const ResolvedEntry* entry = config.find("verdict.threshold");
  const double threshold =
      entry != nullptr && entry->value.is_number() ? entry->value.as_number() : kDefaultVerdictThreshold;
  if (!(threshold > 0 && threshold <= 10)) {
    return Failure{ExitCode::usage, "verdict.threshold must be in (0, 10], got " + text::format_number(threshold)};
  }
  return threshold;
}

namespace {

// A run's value as a constraint: a list or a table is one value, held against the other run's whole, not the "any
// of" or {min, max} that a list or a table means in a published reference.
json::Value exactly(const json::Value& value) {
  return value.is_array() || value.is_object() ? json::Value(json::Array{value}) : value;
}

// The columns a row of the other run is ranked by, the ones that identify a run first (a difference there weighs
// more than any in the context, a framework release or a price): the declared identity keys, and the declared
// identity metrics (a message size) as metric.NAME; then the rest of the configuration. A workload that declares
// no identity ranks its configuration in order.
void add_near_columns(const ResultRow& row, const WorkloadDeclarations* declared, Reference& ref) {
  const bool ranked = declared != nullptr && declared->identity_keys;
  std::vector<Constraint> context;
  if (ranked) {
    for (const std::string& key : *declared->identity_keys) {
      if (const Metric* m = row.find_metric(key); m != nullptr && row.config.find(key) == nullptr) {
        ref.near.push_back({{"metric." + key}, json::Value(m->value)});
      }
    }
  }
  for (const auto& [key, value] : row.config) {
    if (!text::starts_with(key, "verdict.")) {
      (!ranked || identifies(declared, key) ? ref.near : context).push_back({{key}, exactly(value)});
    }
  }
  ref.near.insert(ref.near.end(), context.begin(), context.end());
}

}  // namespace

std::vector<Reference> references_from_run(const Report& run, const std::string& name) {
  const std::string source = "baseline run " + name + ": " + describe_run(run);
  std::vector<Reference> out;
  for (std::size_t i = 0; i < run.rows.size(); ++i) {
    const ResultRow& row = run.rows[i];
    if (row.mode == ResultMode::reference) {
      continue;  // the earlier run's own references are not its results
    }
    Reference ref{name + " row " + std::to_string(i + 1),
                  row.label.empty() ? "baseline" : row.label,
                  source,
                  std::string(to_string(row.mode)),
                  i,
                  {},
                  {},
                  {}};
    ref.exact.push_back({{"workload"}, row.workload});
    ref.exact.push_back({{"table"}, row.table.empty() ? row.workload : row.table});
    add_near_columns(row, declarations_for(run.workloads, row), ref);
    for (const Metric& m : row.metrics) {
      if (better_of(run.workloads, row, m.name, m.unit) != Better::none) {
        ref.values.push_back({m.name, m.value, m.unit, true});
      }
    }
    out.push_back(std::move(ref));
  }
  return out;
}

Expected<Baseline> load_baseline(const std::string& spec) {
  if (spec == "published") {
    auto refs = load_published_references();
    if (!refs) {
      return refs.error();
    }
    return Baseline{"published references (configs/baselines)", std::move(refs.value())};
  }
  auto run = read_results_file(spec);
  if (!run) {
    return Failure{ExitCode::usage, "--baseline " + spec + ": " + run.error().message +
                                        " (--baseline takes 'published' or a results file of dgxhost -o FILE.json)"};
  }
  return Baseline{"baseline run " + spec + " (" + describe_run(run.value()) + ")", references_from_run(*run, spec)};
}

Expected<std::optional<BaselineRun>> prepare_baseline(const std::string& spec, const ResolvedConfig& config) {
  if (spec.empty()) {
    return std::optional<BaselineRun>();
  }
  auto threshold = verdict_threshold(config);
  if (!threshold) {
    return threshold.error();
  }
  auto baseline = load_baseline(spec);
  if (!baseline) {
    return baseline.error();
  }
  return std::optional<BaselineRun>(BaselineRun{std::move(baseline.value()), threshold.value()});
}

namespace {

std::string row_name(const ResultRow& row) {
  if (!row.label.empty()) {
    return row.workload + " " + row.label;
  }
  if (const Field* f = row.find_field("configuration")) {
    return f->value;
  }
  std::vector<std::string> parts;
  for (const auto& [key, value] : row.config) {
    const bool hidden = std::find(row.hidden_config.begin(), row.hidden_config.end(), key) != row.hidden_config.end();
    if (!hidden && parts.size() < 4) {
      parts.push_back(key + "=" + (value.is_string() ? value.as_string() : json::write(value, 0)));
    }
  }
  return row.workload + (parts.empty() ? "" : " (" + text::join(parts, ", ") + ")");
}

std::string comparison_kind(const ResultRow& row, const Reference& ref) {
  const bool projected = row.mode == ResultMode::projected;
  if (ref.kind == "published") {
    return projected ? "model check: a projection held against a published measurement checks the model, not this "
                       "platform"
                     : "platform check: measured on this machine against the published measurement";
  }
  if (projected || ref.kind == "projected") {
    return "model check: " + std::string(to_string(row.mode)) + " against a " + ref.kind +
           " row of an earlier run (a projection checks the model, not a platform)";
  }
  return "run-to-run: measured against a measured row of an earlier run";
}

ResultRow reference_row(const ResultRow& row, const Reference& ref) {
  ResultRow out;
  out.workload = row.workload;
  out.plugin = row.plugin;
  out.mode = ResultMode::reference;
  out.table = row.table;
  out.label = ref.label.empty() ? "reference" : ref.label;
  out.hidden_config = row.hidden_config;
  for (const auto* constraints : {&ref.exact, &ref.near}) {
    for (const Constraint& c : *constraints) {
      if (const std::string key = c.key.config_key(); !key.empty()) {
        out.config.set(key, c.expected.is_object() ? json::Value(c.describe()) : c.expected);
      }
    }
  }
  for (const ReferenceValue& v : ref.values) {
    if (const Metric* m = row.find_metric(v.metric)) {
      if (const auto value = convert(v.value, v.unit, m->unit)) {
        out.add_metric({m->name, *value, m->unit, m->hidden, m->label});
      }
    }
  }
  out.add_field({"verdict", ref.kind == "published" ? "reference" : "baseline", false});
  out.add_field({"source", ref.source.empty() ? ref.origin : ref.source, true});
  out.add_field({"reference", (ref.label.empty() ? "" : ref.label + ", ") + ref.origin, true});
  return out;
}

std::string reference_text(const HeadlineComparison& c, const ReferenceMatch& match) {
  const Reference& ref = *match.reference;
  std::string out = c.metric + " " + format_quantity(c.value, c.unit) + " vs " + format_quantity(c.reference, c.unit) +
                    " (" + std::string(to_string(c.better)) + "): " + ref.kind + " " +
                    (ref.label.empty() ? ref.origin : ref.label);
  if (!match.exact()) {
    out += "; nearest reference, differs in " + match.describe_differences();
  }
  return out;
}

struct Judgement {
  std::string verdict;
  std::string line;  // for the Verdict note
};

Judgement judge(ResultRow& row, const std::optional<ReferenceMatch>& match, double threshold,
                const std::vector<WorkloadDeclarations>& declared) {
  if (!match) {
    row.add_field({"verdict", "no reference", false});
    row.add_field({"reference", "none: no reference of this workload matches its configuration", true});
    return {"no reference", {}};
  }
  if (!match->comparable()) {
    row.add_field({"verdict", "no comparable reference", false});
    row.add_field({"reference",
                   "none comparable: the nearest, " + match->reference->origin + ", differs in " +
                       match->describe_differences() + "; " + match->incomparable,
                   true});
    return {"no reference", row_name(row) + ": no comparable reference (" + match->incomparable + ")"};
  }
  const auto c = headline_comparison(row, *match, declared);
  if (!c) {
    row.add_field({"verdict", "no reference", false});
    row.add_field({"reference",
                   "none: the nearest reference (" + match->reference->origin + ", differs in " +
                       match->describe_differences() + ") has no comparable metric",
                   true});
    return {"no reference", {}};
  }
  const bool pass = c->ratio >= threshold;
  row.add_metric({"ratio_to_reference", c->ratio, "1", false, "ratio"});
  row.add_field({"verdict", pass ? "pass" : "fail", false});
  row.add_field({"reference", reference_text(*c, *match), true});
  row.add_field({"comparison", comparison_kind(row, *match->reference), true});
  row.add_field({"threshold", text::format_number(threshold, 6), true});
  return {pass ? "pass" : "fail", row_name(row) + ": " + text::format_number(c->ratio, 3) + " of the reference (" +
                                      reference_text(*c, *match) + ")"};
}

std::string summary_text(const VerdictCounts& n, const std::vector<std::string>& failed, bool model_check,
                         const Baseline& baseline, double threshold) {
  std::string out = std::to_string(n.pass) + " pass, " + std::to_string(n.fail) + " fail, " + std::to_string(n.none) +
                    " no reference: each row against " + baseline.description +
                    ", pass at >= " + text::format_number(threshold, 3) +
                    " of the reference (verdict.threshold; the ratio reads above 1 as better, whichever way the "
                    "metric improves).";
  for (const std::string& line : failed) {
    out += "\nfail: " + line;
  }
  if (model_check) {
    out += "\nProjected rows held against measurements are a model check: they test the model's accuracy, not "
           "this platform.";
  }
  return out;
}

}  // namespace

VerdictCounts apply_baseline(Report& report, const Baseline& baseline, double threshold) {
  VerdictCounts counts;
  std::vector<std::string> failed, passed, unmatched;
  bool model_check = false;
  std::vector<ResultRow> rows;
  std::map<const Reference*, bool> inserted;
  for (ResultRow& row : report.rows) {
    if (row.mode == ResultMode::reference) {
      rows.push_back(std::move(row));
      continue;
    }
    const auto match = find_reference(row, baseline.references);
    const Judgement j = judge(row, match, threshold, report.workloads);
    if (j.verdict == "no reference") {
      ++counts.none;
      if (!j.line.empty()) {
        unmatched.push_back(j.line);
      }
    } else {
      model_check |= row.mode == ResultMode::projected || match->reference->kind == "projected";
      if (!inserted[match->reference]) {
        rows.push_back(reference_row(row, *match->reference));
      }
      inserted[match->reference] = true;
      if (j.verdict == "pass") {
        ++counts.pass;
        if (!match->exact()) {  // a pass against a nearest reference names what differs
          passed.push_back(j.line);
        }
      }
      if (j.verdict == "fail") {
        ++counts.fail;
        failed.push_back(j.line);
      }
    }
    rows.push_back(std::move(row));
  }
  report.rows = std::move(rows);
  std::string summary = summary_text(counts, failed, model_check, baseline, threshold);
  for (const std::string& line : passed) {
    summary += "\npass: " + line;
  }
  for (const std::string& line : unmatched) {
    summary += "\nnot judged: " + line;
  }
  report.notes.push_back({false, "Verdict", summary});
  if (counts.fail > 0 && report.exit_code == 0) {
    report.exit_code = to_int(ExitCode::check_failed);
    report.error = std::to_string(counts.fail) + " row(s) below verdict.threshold " +
                   text::format_number(threshold, 3) + " of their reference";
  }
  return counts;
}

}  // namespace dgx
