#include "dgx/core/results/document_reader.hpp"

#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace dgx {

namespace {

ResultMode mode_from(const std::string& name) {
  if (name == "projected") {
    return ResultMode::projected;
  }
  if (name == "reference") {
    return ResultMode::reference;
  }
  if (name == "measured") {
    return ResultMode::measured;
  }
  throw std::runtime_error("unknown mode '" + name + "'");
}

std::string string_member(const json::Object& o, std::string_view key) {
  const json::Value* v = o.find(key);
  return v != nullptr && v->is_string() ? v->as_string() : std::string();
}

ResultRow row_from(const json::Object& o) {
  ResultRow row;
  row.workload = o.at("workload").as_string();
  row.plugin = string_member(o, "plugin");
  row.mode = mode_from(o.at("mode").as_string());
  row.table = string_member(o, "table");
  row.label = string_member(o, "label");
  if (const json::Value* c = o.find("config"); c != nullptr && c->is_object()) {
    row.config = c->as_object();
  }
  if (const json::Value* m = o.find("metrics"); m != nullptr && m->is_object()) {
    for (const auto& [name, metric] : m->as_object()) {
      const json::Value& value = metric["value"];
      row.metrics.push_back({name, value.is_number() ? value.as_number() : NAN, metric["unit"].as_string(), false, {}});
    }
  }
  if (const json::Value* info = o.find("info"); info != nullptr && info->is_object()) {
    for (const auto& [key, value] : info->as_object()) {
      if (value.is_string()) {
        row.fields.push_back({key, value.as_string(), false});
      }
    }
  }
  if (const json::Value* samples = o.find("sample_times"); samples != nullptr && samples->is_array()) {
    for (const json::Value& t : samples->as_array()) {
      if (t.is_number()) {
        row.sample_times.push_back(t.as_number());
      }
    }
  }
  return row;
}

Report report_from(const json::Value& doc) {
  const json::Object& top = doc.as_object();
  if (string_member(top, "schema") != kResultsSchema) {
    throw std::runtime_error("not a " + std::string(kResultsSchema) + " document (schema '" +
                             string_member(top, "schema") + "')");
  }
  Report report;
  if (const json::Value* c = top.find("context"); c != nullptr && c->is_object()) {
    report.context = c->as_object();
  }
  if (const json::Value* status = top.find("status"); status != nullptr && status->is_object()) {
    const json::Value* code = status->as_object().find("exit_code");
    report.exit_code = code != nullptr && code->is_int() ? static_cast<int>(code->as_int()) : 0;
    report.error = string_member(status->as_object(), "error");
  }
  for (const json::Value& r : top.at("results").as_array()) {
    report.rows.push_back(row_from(r.as_object()));
  }
  if (const json::Value* notes = top.find("notes"); notes != nullptr && notes->is_array()) {
    for (const json::Value& n : notes->as_array()) {
      const json::Object& o = n.as_object();
      report.notes.push_back(
          {string_member(o, "placement") == "before", string_member(o, "title"), string_member(o, "text")});
    }
  }
  return report;
}

}  // namespace

Expected<Report> parse_results(std::string_view text, const std::string& origin) {
  try {
    return report_from(json::parse(text));
  } catch (const std::exception& e) {
    return Failure{ExitCode::usage, origin + ": " + e.what()};
  }
}

Expected<Report> read_results_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Failure{ExitCode::usage, path + ": cannot open the results file"};
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_results(text.str(), path);
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
