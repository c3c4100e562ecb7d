#include "dgx/core/results/document_reader.hpp"

#include "dgx/core/support/files.hpp"
#include "dgx/core/support/json_cursor.hpp"

namespace dgx {

namespace {

using json::Cursor;

ResultMode mode_from(const Cursor& mode) {
  const std::string& name = mode.string();
  for (const ResultMode m : {ResultMode::measured, ResultMode::projected, ResultMode::reference}) {
    if (to_string(m) == name) {
      return m;
    }
  }
  mode.fail("\"measured\", \"projected\" or \"reference\"");
}

// Every member a row may have is checked for its type when present: a metric whose value is "fast", or samples
// that are not numbers, would otherwise become made-up numbers in a verdict.
ResultRow row_from(const Cursor& r) {
  ResultRow row;
  row.workload = r["workload"].string();
  row.plugin = r.string_or("plugin");
  row.mode = mode_from(r["mode"]);
  row.table = r.string_or("table");
  row.label = r.string_or("label");
  if (const auto config = r.find("config")) {
    row.config = config->object();
  }
  if (const auto metrics = r.find("metrics")) {
    for (const auto& [name, metric] : metrics->members()) {
      row.metrics.push_back({name, metric["value"].number_or_null(), metric["unit"].string(), false, {}});
    }
  }
  if (const auto info = r.find("info")) {
    for (const auto& [key, value] : info->members()) {
      row.fields.push_back({key, value.string(), false});
    }
  }
  if (const auto samples = r.find("sample_times")) {
    row.sample_times = samples->numbers();
  }
  return row;
}

}  // namespace

Report read_results(const Cursor& doc) {
  const std::string schema = doc.string_or("schema");
  if (schema != kResultsSchema) {
    throw json::ReadError("not a " + std::string(kResultsSchema) + " document ($.schema is '" + schema + "')");
  }
  Report report;
  if (const auto context = doc.find("context")) {
    report.context = context->object();
  }
  if (const auto status = doc.find("status")) {
    const auto code = status->find("exit_code");
    report.exit_code = code ? static_cast<int>(code->integer()) : 0;
    report.error = status->string_or("error");
  }
  if (const auto workloads = doc.find("workloads")) {  // ABI 1.1's declarations; absent from older documents
    for (const Cursor& w : workloads->elements()) {
      report.workloads.push_back(read_declarations(w));
    }
  }
  for (const Cursor& r : doc["results"].elements()) {
    report.rows.push_back(row_from(r));
  }
  if (const auto notes = doc.find("notes")) {
    for (const Cursor& n : notes->elements()) {
      report.notes.push_back({n.string_or("placement") == "before", n.string_or("title"), n.string_or("text")});
    }
  }
  return report;
}

Expected<Report> parse_results(std::string_view text, const std::string& origin) {
  try {
    const json::Value doc = json::parse(text);
    return read_results(Cursor(doc));
  } catch (const std::exception& e) {
    return Failure{ExitCode::usage, origin + ": " + e.what()};
  }
}

Expected<Report> read_results_file(const std::string& path) {
  auto text = read_regular_file(path, kMaxResultsFileBytes, "results file");
  if (!text) {
    return text.error();
  }
  return parse_results(text.value(), path);
}

std::string describe_run(const Report& report) {
  const json::Object& c = report.context;
  std::string out;
  if (const json::Value* w = c.find("workload"); w != nullptr && w->is_string()) {
    out = w->as_string();
  }
  if (const json::Value* h = c.find("host"); h != nullptr && h->is_object()) {
    if (const json::Value* name = h->as_object().find("hostname"); name != nullptr && name->is_string()) {
      out += " on host " + name->as_string();
    }
  }
  if (const json::Value* t = c.find("time"); t != nullptr && t->is_string()) {
    out += ", " + t->as_string();
  }
  if (const json::Value* d = c.find("dgxhost"); d != nullptr && d->is_object()) {
    if (const json::Value* git = d->as_object().find("git_revision"); git != nullptr && git->is_string()) {
      out += " (git " + git->as_string() + ")";
    }
  }
  return out.empty() ? "a dgxhost run" : out;
}

}  // namespace dgx
