#include "dgx/core/verdict/reference_store.hpp"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include <toml++/toml.h>

#include "dgx/core/config/layered_config.hpp"
#include "dgx/core/config/toml_reader.hpp"
#include "dgx/core/support/text.hpp"

namespace dgx {

// Row keys --------------------------------------------------------------------------------------------------------

json::Value RowKey::read(const ResultRow& row) const {
  if (path == "workload") {
    return row.workload;
  }
  if (path == "table") {
    return row.table.empty() ? row.workload : row.table;
  }
  if (text::starts_with(path, "info.")) {
    const Field* f = row.find_field(std::string_view(path).substr(5));
    return f != nullptr ? json::Value(f->value) : json::Value();
  }
  if (text::starts_with(path, "metric.")) {
    const Metric* m = row.find_metric(std::string_view(path).substr(7));
    return m != nullptr ? json::Value(m->value) : json::Value();
  }
  const json::Value* v = row.config.find(path);
  return v != nullptr ? *v : json::Value();
}

std::string RowKey::config_key() const {
  if (path == "workload" || path == "table" || text::starts_with(path, "info.") || text::starts_with(path, "metric.")) {
    return {};
  }
  return path;
}

// Constraints -----------------------------------------------------------------------------------------------------

namespace {

bool same_scalar(const json::Value& a, const json::Value& b) {
  if (a.is_number() && b.is_number()) {
    return a.as_number() == b.as_number();
  }
  return a == b;
}

std::string scalar_text(const json::Value& v) { return v.is_string() ? v.as_string() : to_toml_literal(v); }

}  // namespace

bool Constraint::accepts(const json::Value& value) const {
  if (value.is_null()) {
    return false;
  }
  if (expected.is_array()) {
    return std::any_of(expected.as_array().begin(), expected.as_array().end(),
                       [&](const json::Value& e) { return same_scalar(e, value); });
  }
  if (expected.is_object()) {
    if (!value.is_number()) {
      return false;
    }
    const json::Object& range = expected.as_object();
    if (const json::Value* min = range.find("min"); min != nullptr && value.as_number() < min->as_number()) {
      return false;
    }
    if (const json::Value* max = range.find("max"); max != nullptr && value.as_number() > max->as_number()) {
      return false;
    }
    return true;
  }
  return same_scalar(expected, value);
}

std::string Constraint::describe() const {
  if (expected.is_array()) {
    std::vector<std::string> parts;
    for (const json::Value& e : expected.as_array()) {
      parts.push_back(scalar_text(e));
    }
    return text::join(parts, "|");
  }
  if (expected.is_object()) {
    std::vector<std::string> parts;
    if (const json::Value* min = expected.as_object().find("min")) {
      parts.push_back(">= " + scalar_text(*min));
    }
    if (const json::Value* max = expected.as_object().find("max")) {
      parts.push_back("<= " + scalar_text(*max));
    }
    return text::join(parts, " and ");
  }
  return scalar_text(expected);
}

// Reading baseline files ------------------------------------------------------------------------------------------

namespace {

json::Value to_json(const toml::node& node) {
  if (const auto* i = node.as_integer()) {
    return i->get();
  }
  if (const auto* f = node.as_floating_point()) {
    return f->get();
  }
  if (const auto* b = node.as_boolean()) {
    return b->get();
  }
  if (const auto* s = node.as_string()) {
    return s->get();
  }
  if (const auto* a = node.as_array()) {
    json::Array out;
    for (const toml::node& e : *a) {
      out.push_back(to_json(e));
    }
    return out;
  }
  if (const auto* t = node.as_table()) {
    json::Object out;
    for (const auto& [key, value] : *t) {
      out.set(std::string(key.str()), to_json(value));
    }
    return out;
  }
  return {};
}

std::vector<std::string> strings(const toml::table& t, std::string_view key) {
  std::vector<std::string> out;
  if (const toml::array* a = t[key].as_array()) {
    for (const toml::node& e : *a) {
      if (const auto* s = e.as_string()) {
        out.push_back(s->get());
      }
    }
  }
  return out;
}

struct ValueSpec {
  std::string column, metric, unit;
  bool per_gpu = false;
  json::Object where;
};

// One [[reference]] table: how the file's rows map onto dgxhost rows.
struct View {
  std::string workload;
  std::string what;  // what the rows' numbers mean for the rows they judge, appended to each row's label
  std::vector<std::string> match, near;
  json::Object keys, where;
  std::vector<ValueSpec> values;

  [[nodiscard]] RowKey key_of(const std::string& column) const {
    const json::Value* k = keys.find(column);
    return {k != nullptr && k->is_string() ? k->as_string() : column};
  }
};

bool row_has(const json::Object& row, const json::Object& where) {
  for (const auto& [column, value] : where) {
    const json::Value* v = row.find(column);
    if (v == nullptr || !same_scalar(*v, value)) {
      return false;
    }
  }
  return true;
}

Expected<View> view_from(const toml::table& t, const std::string& where_text) {
  View v;
  v.workload = t["workload"].value_or(std::string());
  v.what = t["what"].value_or(std::string());
  v.match = strings(t, "match");
  v.near = strings(t, "near");
  if (const toml::table* keys = t["keys"].as_table()) {
    v.keys = to_json(*keys).as_object();
  }
  if (const toml::table* where = t["where"].as_table()) {
    v.where = to_json(*where).as_object();
  }
  if (const toml::array* values = t["values"].as_array()) {
    for (const toml::node& n : *values) {
      const toml::table* spec = n.as_table();
      if (spec == nullptr) {
        return Failure{ExitCode::usage, where_text + ": values holds tables"};
      }
      ValueSpec s{(*spec)["column"].value_or(std::string()),
                  (*spec)["metric"].value_or(std::string()),
                  (*spec)["unit"].value_or(std::string()),
                  (*spec)["per_gpu"].value_or(false),
                  {}};
      if (const toml::table* w = (*spec)["where"].as_table()) {
        s.where = to_json(*w).as_object();
      }
      if (s.column.empty() || s.metric.empty() || s.unit.empty()) {
        return Failure{ExitCode::usage, where_text + ": every value needs column, metric and unit"};
      }
      v.values.push_back(std::move(s));
    }
  }
  if (v.values.empty()) {
    return Failure{ExitCode::usage, where_text + ": a reference view needs values"};
  }
  return v;
}

std::string string_column(const json::Object& row, std::string_view column) {
  const json::Value* v = row.find(column);
  return v != nullptr && v->is_string() ? v->as_string() : std::string();
}

std::optional<Reference> reference_of(const View& view, const json::Object& row, const std::string& origin) {
  if (!row_has(row, view.where)) {
    return std::nullopt;
  }
  Reference ref{origin, string_column(row, "label"), string_column(row, "source"), "published", 0, {}, {}, {}};
  if (!view.what.empty()) {
    ref.label += (ref.label.empty() ? "" : ": ") + view.what;
  }
  if (!view.workload.empty()) {
    ref.exact.push_back({{"workload"}, view.workload});
  }
  for (const std::string& column : view.match) {
    if (const json::Value* v = row.find(column)) {
      ref.exact.push_back({view.key_of(column), *v});
    }
  }
  for (const std::string& column : view.near) {
    if (const json::Value* v = row.find(column)) {
      ref.near.push_back({view.key_of(column), *v});
    }
  }
  for (const ValueSpec& s : view.values) {
    const json::Value* v = row.find(s.column);
    if (v == nullptr || !v->is_number() || !row_has(row, s.where)) {
      continue;
    }
    ref.values.push_back({s.metric, v->as_number(), s.unit, s.per_gpu});
  }
  if (ref.values.empty()) {
    return std::nullopt;
  }
  return ref;
}

}  // namespace

Expected<std::vector<Reference>> parse_references(std::string_view toml_text, const std::string& name) {
  toml::table root;
  try {
    root = toml::parse(toml_text, name);
  } catch (const toml::parse_error& e) {
    return Failure{ExitCode::usage, name + ": " + std::string(e.description())};
  }
  std::vector<View> views;
  if (const toml::array* tables = root["reference"].as_array()) {
    for (std::size_t i = 0; i < tables->size(); ++i) {
      const toml::table* t = (*tables)[i].as_table();
      if (t == nullptr) {
        return Failure{ExitCode::usage, name + ": [[reference]] must be tables"};
      }
      auto view = view_from(*t, name + " [[reference]] " + std::to_string(i + 1));
      if (!view) {
        return view.error();
      }
      views.push_back(std::move(view.value()));
    }
  }
  std::vector<Reference> out;
  const toml::array* rows = root["row"].as_array();
  if (rows == nullptr) {
    return out;
  }
  for (std::size_t i = 0; i < rows->size(); ++i) {
    const toml::table* t = (*rows)[i].as_table();
    if (t == nullptr) {
      continue;
    }
    const json::Object row = to_json(*t).as_object();
    for (const View& view : views) {
      if (auto ref = reference_of(view, row, name + " row " + std::to_string(i + 1))) {
        out.push_back(std::move(*ref));
      }
    }
  }
  return out;
}

Expected<std::vector<Reference>> load_published_references(const std::vector<SearchPath>& config_paths) {
  std::vector<Reference> out;
  std::set<std::string> seen;  // a file name found in an earlier directory hides later ones, as presets do
  for (const SearchPath& dir : config_paths) {
    std::error_code ec;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path / "baselines", ec)) {
      if (entry.path().extension() == ".toml") {
        files.push_back(entry.path());
      }
    }
    std::sort(files.begin(), files.end());
    for (const std::filesystem::path& file : files) {
      if (!seen.insert(file.filename().string()).second) {
        continue;
      }
      std::ifstream in(file, std::ios::binary);
      std::ostringstream content;
      content << in.rdbuf();
      auto refs = parse_references(content.str(), file.filename().string());
      if (!refs) {
        return Failure{ExitCode::usage, file.string() + ": " + refs.error().message};
      }
      out.insert(out.end(), refs->begin(), refs->end());
    }
  }
  return out;
}

}  // namespace dgx
