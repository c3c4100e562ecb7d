#include "dgx/core/verdict/reference_store.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include "dgx/catalog/catalog_files.hpp"
#include "dgx/catalog/toml_table.hpp"
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

// Numbers by value (an integer and a float of the same value are one), lists element by element.
bool same_value(const json::Value& a, const json::Value& b) {
  if (a.is_number() && b.is_number()) {
    return a.as_number() == b.as_number();
  }
  if (a.is_array() && b.is_array()) {
    const json::Array& x = a.as_array();
    const json::Array& y = b.as_array();
    return std::equal(x.begin(), x.end(), y.begin(), y.end(), same_value);
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
                       [&](const json::Value& e) { return same_value(e, value); });
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
  return same_value(expected, value);
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

using catalog::ConfigError;
using catalog::TomlTable;

// A value the catalog's front door hands on whole, as the host's JSON.
json::Value json_of(const std::string& text) { return json::parse(text); }

json::Object object_at(const TomlTable& t, std::string_view key) {
  if (!t.contains(key)) {
    return {};
  }
  json::Value value = json_of(t.json_text(key));
  if (!value.is_object()) {
    throw ConfigError(t.where(key) + " must be a table");
  }
  return value.as_object();
}

std::vector<std::string> optional_strings(const TomlTable& t, std::string_view key) {
  return t.contains(key) ? t.strings(key) : std::vector<std::string>{};
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
    if (v == nullptr || !same_value(*v, value)) {
      return false;
    }
  }
  return true;
}

View view_from(const TomlTable& t) {
  View v;
  v.workload = t.optional_string("workload").value_or("");
  v.what = t.optional_string("what").value_or("");
  v.match = optional_strings(t, "match");
  v.near = optional_strings(t, "near");
  v.keys = object_at(t, "keys");
  v.where = object_at(t, "where");
  for (const TomlTable& spec : t.tables("values")) {
    v.values.push_back(ValueSpec{.column = spec.string("column"),
                                 .metric = spec.string("metric"),
                                 .unit = spec.string("unit"),
                                 .per_gpu = spec.boolean("per_gpu", false),
                                 .where = object_at(spec, "where")});
  }
  if (v.values.empty()) {
    throw ConfigError(t.position() + ": a reference view needs values");
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
  auto refs = catalog::read_toml(toml_text, name, [&](const TomlTable& root) {
    std::vector<View> views;
    for (const TomlTable& t : root.tables("reference")) {
      views.push_back(view_from(t));
    }
    std::vector<Reference> out;
    const std::vector<TomlTable> rows = root.tables("row");
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const json::Value row = json_of(rows[i].json_text());
      for (const View& view : views) {
        if (auto ref = reference_of(view, row.as_object(), name + " row " + std::to_string(i + 1))) {
          out.push_back(std::move(*ref));
        }
      }
    }
    return out;
  });
  if (!refs) {
    return Failure{ExitCode::usage, refs.error().message};
  }
  return std::move(refs).value();
}

Expected<std::vector<Reference>> load_published_references() {
  auto files = catalog::catalog_folder("baselines");
  if (!files) {
    return Failure{ExitCode::usage, files.error().message};
  }
  std::vector<Reference> out;
  for (const catalog::CatalogFile& file : *files) {
    // Named by the file's name, as the rows' origin ("calibration.toml row 3"); errors by its label and line.
    auto refs = parse_references(file.text, file.label);
    if (!refs) {
      return refs.error();
    }
    for (Reference& ref : *refs) {
      ref.origin = std::filesystem::path(file.relative).filename().string() +
                   ref.origin.substr(std::min(ref.origin.size(), file.label.size()));
      out.push_back(std::move(ref));
    }
  }
  return out;
}

}  // namespace dgx
