// The JUnit reporter: the report as the JUnit XML that Jenkins, GitLab and GitHub Actions read (the Jenkins/Ant
// format; docs/results-schema.md, "JUnit XML", and tests/core/report/data/junit.xsd). One <testsuite> per row group
// (table), one <testcase> per row: failed when a verdict is fail, regression or slower, skipped when it could not be
// judged (no reference, no comparable reference, no projection, not enough history), passed otherwise, rows without
// any verdict included. A failed report adds a test case with its <error>.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dgx/core/report/reporters.hpp"
#include "dgx/core/report/table.hpp"
#include "dgx/core/support/printable.hpp"
#include "dgx/core/support/quantity.hpp"
#include "dgx/core/support/text.hpp"

namespace dgx {

namespace {

// Characters XML 1.0 allows: printable() leaves valid UTF-8 with tab and newline, other control characters
// written as \xNN; the two non-characters U+FFFE and U+FFFF become U+FFFD.
std::string xml_chars(std::string_view s) {
  std::string out = printable(s, true);
  for (std::size_t i = out.find("\xef\xbf"); i != std::string::npos; i = out.find("\xef\xbf", i + 1)) {
    if (i + 2 < out.size() && (out[i + 2] == '\xbe' || out[i + 2] == '\xbf')) {
      out[i + 2] = '\xbd';
    }
  }
  return out;
}

// Element content: & and < (and >, so that "]]>" never appears) as entities.
std::string xml_text(std::string_view s) {
  std::string out;
  for (const char c : xml_chars(s)) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    default: out += c;
    }
  }
  return out;
}

// An attribute value in double quotes; tab and newline as character references, which attribute-value
// normalization would otherwise turn into spaces.
std::string xml_attribute(std::string_view s) {
  std::string out;
  for (const char c : xml_text(s)) {
    switch (c) {
    case '"': out += "&quot;"; break;
    case '\'': out += "&apos;"; break;
    case '\t': out += "&#9;"; break;
    case '\n': out += "&#10;"; break;
    default: out += c;
    }
  }
  return out;
}

std::string attribute(std::string_view name, std::string_view value) {
  return " " + std::string(name) + "=\"" + xml_attribute(value) + "\"";
}

// Seconds as xs:decimal (no exponent), to the nanosecond.
std::string seconds_text(double seconds) {
  std::string out = text::fixed(seconds, 9);
  while (out.back() == '0') {
    out.pop_back();
  }
  if (out.back() == '.') {
    out.pop_back();
  }
  return out == "-0" ? "0" : out;
}

enum class Outcome { passed, skipped, failed };

Outcome outcome_of(std::string_view verdict) {
  if (verdict == "fail" || verdict == "regression" || verdict == "slower") {
    return Outcome::failed;
  }
  if (verdict == "no reference" || verdict == "no comparable reference" || verdict == "no projection" ||
      verdict == "not enough history") {
    return Outcome::skipped;
  }
  return Outcome::passed;  // pass, improvement, no significant difference, as projected, faster; reference, baseline
}

struct Judgement {
  Outcome outcome = Outcome::passed;  // a row without any verdict passes
  std::vector<std::string> failed, skipped;
  std::string failed_type;
};

// Every verdict of the row (info.verdict, info.verdict.<check>) with the field that says why: `why` (compare),
// `reference` (--baseline), or the check's own (`projection`).
Judgement judge(const ResultRow& row) {
  Judgement j;
  bool passed = false;
  for (const Field& f : row.fields) {
    if (f.key != "verdict" && !f.key.starts_with("verdict.")) {
      continue;
    }
    const std::string check = f.key == "verdict" ? std::string() : f.key.substr(8);
    const Field* why = check.empty() ? row.find_field("why") : row.find_field(check);
    if (why == nullptr && check.empty()) {
      why = row.find_field("reference");
    }
    const std::string message =
        (check.empty() ? "" : check + " ") + f.value + (why == nullptr ? "" : ": " + why->value);
    switch (outcome_of(f.value)) {
    case Outcome::failed:
      j.failed.push_back(message);
      j.failed_type = j.failed_type.empty() ? f.value : j.failed_type;
      break;
    case Outcome::skipped: j.skipped.push_back(message); break;
    case Outcome::passed: passed = true; break;
    }
  }
  j.outcome = !j.failed.empty() ? Outcome::failed : !j.skipped.empty() && !passed ? Outcome::skipped : Outcome::passed;
  return j;
}

// dgx.<plugin>.<table>: each part a single word, so CI tools that split class names at dots keep three levels.
std::string class_part(std::string_view s) {
  std::string out;
  for (const char c : s) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_';
    if (keep || (!out.empty() && out.back() != '_')) {
      out += keep ? c : '_';
    }
  }
  while (!out.empty() && out.back() == '_') {
    out.pop_back();
  }
  return out.empty() ? "_" : out;
}

// The row's label and what tells it apart from the other rows of its table: the config keys that vary, a
// collective case's size, the systems a reference of the platform check's plan applies to ("1000 us",
// "comm.placement=in-place, size=4194304").
std::string case_name(const ResultRow& row, const std::vector<std::string>& keys) {
  std::vector<std::string> parts;
  for (const std::string& key : keys) {
    if (row.config.find(key) != nullptr) {
      parts.push_back(key + "=" + row.config_text(key));
    }
  }
  if (const std::string size = case_size(row); !size.empty()) {
    parts.push_back("size=" + size);
  }
  if (const Field* systems = row.find_field("systems")) {
    parts.push_back("systems=" + systems->value);
  }
  if (row.label.empty()) {
    return parts.empty() ? std::string(to_string(row.mode)) : text::join(parts, ", ");
  }
  return parts.empty() ? row.label : row.label + " (" + text::join(parts, ", ") + ")";
}

// What CI shows under the test case: the row's mode, config, metrics (with what their workload declares of them:
// "busbw: 360.5 GB/s (bus bandwidth ...; higher is better)") and provenance.
std::string row_output(const ResultRow& row, const std::vector<WorkloadDeclarations>& declared) {
  std::string out = "mode: " + std::string(to_string(row.mode)) + "\n";
  std::vector<std::string> config;
  for (const auto& entry : row.config) {
    config.push_back(entry.first + "=" + row.config_text(entry.first));
  }
  if (!config.empty()) {
    out += "config: " + text::join(config, ", ") + "\n";
  }
  for (const Metric& m : row.metrics) {
    const bool whole = m.unit == "count" && m.value == std::trunc(m.value) && std::abs(m.value) < 1e15;
    out += m.name + ": " +
           (whole ? std::to_string(static_cast<long long>(m.value)) + " " + m.unit : format_quantity(m.value, m.unit));
    if (const MetricDeclaration* d = declared_metric(declared, row, m.name); d != nullptr && !d->help.empty()) {
      out += " (" + d->help + "; " + std::string(to_string(d->better)) + ")";
    }
    out += "\n";
  }
  for (const Field& f : row.fields) {
    out += "info." + f.key + ": " + f.value + "\n";
  }
  return out;
}

std::optional<double> median_seconds(const ResultRow& row) {
  const Metric* m = row.find_metric("time.median");
  const auto seconds = m != nullptr ? convert(m->value, m->unit, "s") : std::nullopt;
  return seconds && std::isfinite(*seconds) && *seconds >= 0 ? seconds : std::nullopt;
}

struct Suite {
  std::string name;
  std::vector<std::string> cases;  // <testcase> elements
  std::vector<std::string> names;  // their names, kept unique
  int failures = 0, errors = 0, skipped = 0;
  double time = 0;
};

std::string unique_name(Suite& suite, const std::string& name) {
  std::string out = name;
  for (int n = 2; std::find(suite.names.begin(), suite.names.end(), out) != suite.names.end(); ++n) {
    out = name + " #" + std::to_string(n);
  }
  suite.names.push_back(out);
  return out;
}

void add_case(Suite& suite, const ResultRow& row, const std::vector<std::string>& keys,
              const std::vector<WorkloadDeclarations>& declared) {
  const Judgement j = judge(row);
  const auto time = median_seconds(row);
  const std::string& group = row.table.empty() ? row.workload : row.table;
  std::string out = "<testcase" + attribute("classname", "dgx." + class_part(row.plugin) + "." + class_part(group)) +
                    attribute("name", unique_name(suite, case_name(row, keys)));
  if (time) {
    out += attribute("time", seconds_text(*time));
    suite.time += *time;
  }
  out += ">\n";
  if (j.outcome == Outcome::skipped) {
    out += "<skipped" + attribute("message", text::join(j.skipped, "; ")) + "/>\n";
    ++suite.skipped;
  }
  if (j.outcome == Outcome::failed) {
    const std::string message = text::join(j.failed, "; ");
    out += "<failure" + attribute("message", message) + attribute("type", j.failed_type) + ">" + xml_text(message) +
           "</failure>\n";
    ++suite.failures;
  }
  suite.cases.push_back(out + "<system-out>" + xml_text(row_output(row, declared)) + "</system-out>\n</testcase>\n");
}

std::string context_string(const json::Object& object, const char* key) {
  const json::Value* v = object.find(key);
  return v != nullptr && v->is_string() ? v->as_string() : std::string();
}

const json::Object* context_object(const json::Object& object, const char* key) {
  const json::Value* v = object.find(key);
  return v != nullptr && v->is_object() ? &v->as_object() : nullptr;
}

std::string joined_strings(const json::Object& context, const char* key, const char* separator) {
  const json::Value* v = context.find(key);
  std::vector<std::string> parts;
  if (v != nullptr && v->is_array()) {
    for (const json::Value& e : v->as_array()) {
      parts.push_back(e.is_string() ? e.as_string() : json::write(e, 0));
    }
  }
  return text::join(parts, separator);
}

// The context as <properties>: what ran where, with which dgxhost.
std::string properties(const Report& report) {
  const json::Object& c = report.context;
  std::vector<std::pair<std::string, std::string>> p;
  if (const json::Object* self = context_object(c, "dgxhost")) {
    p.emplace_back("dgxhost.version", context_string(*self, "version"));
    p.emplace_back("dgxhost.git_revision", context_string(*self, "git_revision"));
  }
  if (const json::Object* plugin = context_object(c, "plugin")) {
    p.emplace_back("plugin", context_string(*plugin, "name") + " " + context_string(*plugin, "version"));
  }
  for (const char* key : {"workload", "preset", "requested_mode", "mode", "gpu_summary"}) {
    p.emplace_back(key, context_string(c, key));
  }
  if (const json::Object* host = context_object(c, "host")) {
    p.emplace_back("host", context_string(*host, "hostname"));
  }
  p.emplace_back("argv", joined_strings(c, "argv", " "));
  p.emplace_back("config_overrides", joined_strings(c, "config_overrides", " "));
  if (report.exit_code != 0) {
    p.emplace_back("exit_code", std::to_string(report.exit_code));
    p.emplace_back("error", report.error);
  }
  std::string out;
  for (const auto& [name, value] : p) {
    if (!text::trim(value).empty()) {
      out += "<property" + attribute("name", name) + attribute("value", value) + "/>\n";
    }
  }
  return out.empty() ? out : "<properties>\n" + out + "</properties>\n";  // never an empty <properties>
}

// A failed report's error, as a test case of the suite named after the workload (a new one if no table is): unless
// the exit code only says that rows failed their verdicts, which their own test cases show.
void add_error(std::vector<Suite>& suites, const Report& report) {
  const bool rows_failed = std::any_of(suites.begin(), suites.end(), [](const Suite& s) { return s.failures > 0; });
  if (report.exit_code == 0 || (report.exit_code == to_int(ExitCode::check_failed) && rows_failed)) {
    return;
  }
  std::string workload = context_string(report.context, "workload");
  workload = workload.empty() ? "dgxhost" : workload;
  const json::Object* plugin = context_object(report.context, "plugin");
  const std::string plugin_name = plugin != nullptr ? context_string(*plugin, "name") : "dgxhost";
  auto suite = std::find_if(suites.begin(), suites.end(), [&](const Suite& s) { return s.name == workload; });
  if (suite == suites.end()) {
    suites.push_back({workload, {}, {}, 0, 0, 0, 0});
    suite = std::prev(suites.end());
  }
  const std::string message = report.error.empty() ? "dgxhost failed" : report.error;
  suite->cases.push_back(
      "<testcase" + attribute("classname", "dgx." + class_part(plugin_name) + "." + class_part(workload)) +
      attribute("name", unique_name(*suite, "exit status")) + ">\n<error" + attribute("message", message) +
      attribute("type", "exit code " + std::to_string(report.exit_code)) + ">" +
      xml_text("exit code " + std::to_string(report.exit_code) + ": " + message) + "</error>\n</testcase>\n");
  ++suite->errors;
}

// Ant's timestamp: the context's UTC time without its zone ("2026-01-02T03:04:05").
std::string timestamp(const Report& report) {
  std::string time = context_string(report.context, "time");
  if (!time.empty() && time.back() == 'Z') {
    time.pop_back();
  }
  return time;
}

std::string suite_xml(const Suite& s, const Report& report, const std::string& props) {
  std::string out = "<testsuite" + attribute("name", s.name) + attribute("tests", std::to_string(s.cases.size())) +
                    attribute("failures", std::to_string(s.failures)) + attribute("errors", std::to_string(s.errors)) +
                    attribute("skipped", std::to_string(s.skipped)) + attribute("time", seconds_text(s.time));
  if (const std::string t = timestamp(report); !t.empty()) {
    out += attribute("timestamp", t);
  }
  if (const json::Object* host = context_object(report.context, "host")) {
    out += attribute("hostname", context_string(*host, "hostname"));
  }
  out += ">\n" + props;
  for (const std::string& c : s.cases) {
    out += c;
  }
  return out + "</testsuite>\n";
}

}  // namespace

std::string render_junit(const Report& report) {
  std::vector<Suite> suites;
  for (const RowGroup& group : group_rows(report.rows)) {
    Suite suite{group.title, {}, {}, 0, 0, 0, 0};
    const std::vector<std::string> keys = varying_config_keys(group.rows, true);
    for (const ResultRow* row : group.rows) {
      add_case(suite, *row, keys, report.workloads);
    }
    suites.push_back(std::move(suite));
  }
  add_error(suites, report);
  std::size_t tests = 0;
  int failures = 0, errors = 0, skipped = 0;
  double time = 0;
  for (const Suite& s : suites) {
    tests += s.cases.size();
    failures += s.failures;
    errors += s.errors;
    skipped += s.skipped;
    time += s.time;
  }
  const std::string workload = context_string(report.context, "workload");
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites" +
                    attribute("name", workload.empty() ? "dgxhost" : "dgxhost " + workload) +
                    attribute("tests", std::to_string(tests)) + attribute("failures", std::to_string(failures)) +
                    attribute("errors", std::to_string(errors)) + attribute("skipped", std::to_string(skipped)) +
                    attribute("time", seconds_text(time)) + ">\n";
  const std::string props = properties(report);
  for (const Suite& s : suites) {
    out += suite_xml(s, report, props);
  }
  return out + "</testsuites>\n";
}

}  // namespace dgx
