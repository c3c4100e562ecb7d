#include "dgx/core/results/document.hpp"

#include "dgx/core/support/build_info.hpp"
#include <algorithm>

namespace dgx {

json::Object dgxhost_identity() {
  json::Object self;
  self.set("version", build_info::version());
  self.set("git_revision", build_info::git_revision());
  return self;
}

std::string_view to_string(ResultMode mode) {
  switch (mode) {
  case ResultMode::measured: return "measured";
  case ResultMode::projected: return "projected";
  case ResultMode::reference: return "reference";
  }
  return "?";
}

void ResultRow::add_metric(Metric metric) {
  auto it = std::find_if(metrics.begin(), metrics.end(), [&](const Metric& m) { return m.name == metric.name; });
  if (it != metrics.end()) {
    *it = std::move(metric);
  } else {
    metrics.push_back(std::move(metric));
  }
}

void ResultRow::add_field(Field field) {
  auto it = std::find_if(fields.begin(), fields.end(), [&](const Field& f) { return f.key == field.key; });
  if (it != fields.end()) {
    *it = std::move(field);
  } else {
    fields.push_back(std::move(field));
  }
}

const Metric* ResultRow::find_metric(std::string_view name) const {
  for (const Metric& m : metrics) {
    if (m.name == name) {
      return &m;
    }
  }
  return nullptr;
}

const Field* ResultRow::find_field(std::string_view key) const {
  for (const Field& f : fields) {
    if (f.key == key) {
      return &f;
    }
  }
  return nullptr;
}

std::string ResultRow::config_text(std::string_view key, std::string_view fallback) const {
  const json::Value* v = config.find(key);
  if (v == nullptr) {
    return std::string(fallback);
  }
  return v->is_string() ? v->as_string() : json::write(*v, 0);
}

json::Value ResultRow::to_json() const {
  json::Object row;
  row.set("workload", workload);
  row.set("plugin", plugin);
  row.set("mode", std::string(to_string(mode)));
  if (!table.empty() && table != workload) {
    row.set("table", table);
  }
  if (!label.empty()) {
    row.set("label", label);
  }
  row.set("config", config);
  json::Object m;
  for (const Metric& metric : metrics) {
    json::Object v;
    v.set("value", metric.value);
    v.set("unit", metric.unit);
    m.set(metric.name, std::move(v));
  }
  row.set("metrics", std::move(m));
  json::Object info;
  for (const Field& f : fields) {
    info.set(f.key, f.value);
  }
  row.set("info", std::move(info));
  if (!sample_times.empty()) {
    row.set("sample_times", json::Array(sample_times.begin(), sample_times.end()));
  }
  return row;
}

json::Value Report::to_json() const {
  json::Object doc;
  doc.set("schema", kResultsSchema);
  json::Object status;
  status.set("exit_code", exit_code);
  status.set("ok", exit_code == 0);
  if (!error.empty()) {
    status.set("error", error);
  }
  doc.set("status", std::move(status));
  doc.set("context", context);
  if (!workloads.empty()) {
    json::Array declared;
    for (const WorkloadDeclarations& w : workloads) {
      declared.push_back(w.to_json());
    }
    doc.set("workloads", std::move(declared));
  }
  json::Array results;
  for (const ResultRow& r : rows) {
    results.push_back(r.to_json());
  }
  doc.set("results", std::move(results));
  json::Array notes_json;
  for (const Note& n : notes) {
    json::Object o;
    o.set("placement", n.before ? "before" : "after");
    o.set("title", n.title);
    o.set("text", n.text);
    notes_json.push_back(std::move(o));
  }
  doc.set("notes", std::move(notes_json));
  return doc;
}

}  // namespace dgx
