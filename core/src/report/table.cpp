#include "dgx/core/report/table.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>

#include "dgx/core/config/layered_config.hpp"
#include "dgx/core/config/toml_reader.hpp"
#include "dgx/core/support/quantity.hpp"
#include "dgx/core/support/text.hpp"
#include "nccl_table.hpp"

namespace dgx {

namespace {

// The mode column: an imported row says which tool measured it ("measured (imported: torchtitan)"); CSV keeps the
// bare mode, its source column says the rest.
std::string mode_cell(const ResultRow& r, bool all) {
  std::string mode(to_string(r.mode));
  const Field* source = r.find_field("source");
  if (!all && r.mode == ResultMode::measured && source != nullptr && text::starts_with(source->value, "imported")) {
    mode += " (" + source->value + ")";
  }
  return mode;
}

// A unit scaled for display: values are divided by `divisor` and the header shows `unit`.
struct Scale {
  std::string unit;
  double divisor = 1;
};

Scale pick_scale(const std::string& unit, std::vector<double> values) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v) || v == 0; }),
               values.end());
  if (values.empty()) {
    return {unit, 1};
  }
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end(),
                   [](double a, double b) { return std::abs(a) < std::abs(b); });
  double typical = std::abs(values[values.size() / 2]);
  // Sizes span decades in a sweep: scale bytes by the smallest so that none shows as a fraction.
  if (unit == "B") {
    typical = std::abs(
        *std::min_element(values.begin(), values.end(), [](double a, double b) { return std::abs(a) < std::abs(b); }));
  }
  if (unit == "s") {
    if (typical >= 1) {
      return {"s", 1};
    }
    if (typical >= 1e-3) {
      return {"ms", 1e-3};
    }
    if (typical >= 1e-6) {
      return {"us", 1e-6};
    }
    return {"ns", 1e-9};
  }
  if (unit == "B" || unit == "B/s") {
    const std::string suffix = unit == "B" ? "" : "/s";
    if (typical >= 1e12) {
      return {"TB" + suffix, 1e12};
    }
    if (typical >= 1e9) {
      return {"GB" + suffix, 1e9};
    }
    if (typical >= 1e6) {
      return {"MB" + suffix, 1e6};
    }
    if (typical >= 1e3) {
      return {"KB" + suffix, 1e3};
    }
  }
  return {unit, 1};
}

std::string format_value(double value, const std::string& unit) {
  if (unit == "count" && std::isfinite(value) && value == std::floor(value) && std::abs(value) < 1e15) {
    return std::to_string(static_cast<long long>(value));
  }
  return text::format_number(value, 4);
}

std::string config_cell(const json::Value& v) {
  if (v.is_string()) {
    return v.as_string();
  }
  if (v.is_array()) {
    std::vector<std::string> parts;
    for (const json::Value& e : v.as_array()) {
      parts.push_back(config_cell(e));
    }
    return text::join(parts, ",");
  }
  return to_toml_literal(v);
}

template <typename T, typename Key> void add_unique(std::vector<T>& out, const T& item, Key key) {
  if (std::none_of(out.begin(), out.end(), [&](const T& x) { return key(x) == key(item); })) {
    out.push_back(item);
  }
}

}  // namespace

std::vector<RowGroup> group_rows(const std::vector<ResultRow>& rows) {
  std::vector<RowGroup> groups;
  for (const ResultRow& r : rows) {
    const std::string& title = r.table.empty() ? r.workload : r.table;
    auto group = std::find_if(groups.begin(), groups.end(), [&](const RowGroup& g) { return g.title == title; });
    if (group == groups.end()) {
      groups.push_back({title, {}});
      group = std::prev(groups.end());
    }
    group->rows.push_back(&r);
  }
  return groups;
}

// A key varies when two rows give it different values, or a row that is not a reference lacks it (a reference has
// its own keys only). One pass over the rows, not one per row and key: a history of 27,000 rows took 40 s.
std::vector<std::string> varying_config_keys(const std::vector<const ResultRow*>& rows, bool include_hidden) {
  struct Seen {
    const json::Value* first = nullptr;  // the first row's value
    bool differs = false;                // another row's value is not the first
    std::size_t unreferenced = 0;        // rows other than references that have it
    bool shown = false;                  // some row has it and does not hide it (or hidden keys count)
  };
  std::map<std::string, Seen, std::less<>> seen;
  std::vector<std::string> order;  // first appearance in a row that shows it
  std::size_t unreferenced_rows = 0;
  for (const ResultRow* r : rows) {
    unreferenced_rows += r->mode == ResultMode::reference ? 0 : 1;
    for (const auto& [key, value] : r->config) {
      Seen& s = seen[key];
      if (s.first == nullptr) {
        s.first = &value;
      } else if (!s.differs && !(*s.first == value)) {
        s.differs = true;
      }
      s.unreferenced += r->mode == ResultMode::reference ? 0 : 1;
      const bool hidden = std::find(r->hidden_config.begin(), r->hidden_config.end(), key) != r->hidden_config.end();
      if (!s.shown && (include_hidden || !hidden)) {
        s.shown = true;
        order.push_back(key);
      }
    }
  }
  std::vector<std::string> keys;
  for (const std::string& key : order) {
    const Seen& s = seen.find(key)->second;
    if (s.differs || s.unreferenced < unreferenced_rows) {
      keys.push_back(key);
    }
  }
  return keys;
}

std::string case_size(const ResultRow& row) {
  const Metric* size = row.find_metric("size");
  const auto bytes = size != nullptr ? convert(size->value, size->unit, "B") : std::nullopt;
  if (!bytes || !std::isfinite(*bytes) || *bytes < 0) {
    return {};
  }
  return std::to_string(std::llround(*bytes));
}

Table build_table(const std::string& title, const std::vector<const ResultRow*>& rows, bool all) {
  Table t;
  t.title = title;
  // Columns: mode, label, the config keys that differ between rows (all of them for CSV), fields, metrics.
  std::vector<std::string> config_keys;
  if (all) {
    for (const ResultRow* r : rows) {
      for (const auto& entry : r->config) {
        add_unique(config_keys, entry.first, [](const std::string& k) { return k; });
      }
    }
  } else {
    config_keys = varying_config_keys(rows, false);
  }
  std::vector<std::string> field_keys;
  struct MetricColumn {
    std::string name, unit, label;
  };
  std::vector<MetricColumn> metric_keys;
  for (const ResultRow* r : rows) {
    for (const Field& f : r->fields) {
      if (all || !f.hidden) {
        add_unique(field_keys, f.key, [](const std::string& k) { return k; });
      }
    }
    for (const Metric& m : r->metrics) {
      if (all || !m.hidden) {
        add_unique(metric_keys, {m.name, m.unit, m.label}, [](const auto& c) { return c.name; });
      }
    }
  }
  const bool any_label = std::any_of(rows.begin(), rows.end(), [](const ResultRow* r) { return !r->label.empty(); });

  // Columns of one quantity share one unit, the one that reads best for the first of them (the headline, e.g.
  // time.median before time.stdev).
  std::vector<Scale> scales;
  for (const MetricColumn& column : metric_keys) {
    const auto first = std::find_if(metric_keys.begin(), metric_keys.end(),
                                    [&](const MetricColumn& c) { return c.unit == column.unit; });
    std::vector<double> values;
    for (const ResultRow* r : rows) {
      if (const Metric* m = r->find_metric(first->name)) {
        values.push_back(m->value);
      }
    }
    scales.push_back(all ? Scale{column.unit, 1} : pick_scale(column.unit, values));
  }

  auto header = [&](std::string name, bool right) {
    t.headers.push_back(std::move(name));
    t.right_aligned.push_back(right);
  };
  header("mode", false);
  if (any_label) {
    header("case", false);
  }
  for (const std::string& k : config_keys) {
    header(k, true);
  }
  for (const std::string& k : field_keys) {
    header(all ? "info." + k : k, false);  // CSV: apart from config keys
  }
  for (std::size_t i = 0; i < metric_keys.size(); ++i) {
    const MetricColumn& column = metric_keys[i];
    const std::string& unit = scales[i].unit;
    // A label is the plugin's own short title with its unit in it, except for the units this table rescales
    // (s, B, B/s), whose displayed unit only the table knows.
    if (!all && !column.label.empty()) {
      const bool rescalable = column.unit == "s" || column.unit == "B" || column.unit == "B/s";
      header(rescalable ? column.label + " [" + unit + "]" : column.label, true);
      continue;
    }
    const bool plain = unit.empty() || unit == column.name || (!all && (unit == "1" || unit == "count"));
    header(plain ? column.name : column.name + " [" + unit + "]", true);
  }

  for (const ResultRow* r : rows) {
    std::vector<std::string> cells{mode_cell(*r, all)};
    if (any_label) {
      cells.push_back(r->label);
    }
    for (const std::string& k : config_keys) {
      const json::Value* v = r->config.find(k);
      cells.push_back(v != nullptr ? config_cell(*v) : "");
    }
    for (const std::string& k : field_keys) {
      const Field* f = r->find_field(k);
      cells.push_back(f != nullptr ? f->value : "");
    }
    for (std::size_t i = 0; i < metric_keys.size(); ++i) {
      const Metric* m = r->find_metric(metric_keys[i].name);
      cells.push_back(m == nullptr ? ""
                      : all        ? json::write(json::Value(m->value), 0)
                                   : format_value(m->value / scales[i].divisor, scales[i].unit));
    }
    t.cells.push_back(std::move(cells));
  }
  return t;
}

namespace {

std::string pad(const std::string& s, std::size_t width, bool right) {
  const std::size_t columns = text::display_width(s);
  if (columns >= width) {
    return s;
  }
  const std::string fill(width - columns, ' ');
  return right ? fill + s : s + fill;
}

// The line of column-group titles above the headers (nccl-tests' "out-of-place  in-place"), each starting at its
// group's first column; empty when the table has no groups.
std::string column_groups_line(const Table& t, const std::vector<std::size_t>& widths) {
  if (std::all_of(t.groups.begin(), t.groups.end(), [](const std::string& g) { return g.empty(); })) {
    return {};
  }
  std::string out;
  std::size_t at = 0;
  for (std::size_t c = 0; c < widths.size(); ++c) {
    const bool starts = c < t.groups.size() && !t.groups[c].empty() && (c == 0 || t.groups[c - 1] != t.groups[c]);
    if (starts && out.size() <= at) {
      out += std::string(at - out.size(), ' ') + t.groups[c];
    }
    at += widths[c] + 2;
  }
  return out + "\n";
}

}  // namespace

std::string render_text_table(const Table& t) {
  std::vector<std::size_t> widths;
  for (std::size_t c = 0; c < t.headers.size(); ++c) {
    std::size_t w = text::display_width(t.headers[c]);
    for (const auto& row : t.cells) {
      w = std::max(w, text::display_width(row[c]));
    }
    widths.push_back(w);
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      out += (c ? "  " : "") + pad(cells[c], widths[c], t.right_aligned[c]);
    }
    while (!out.empty() && out.back() == ' ') {
      out.pop_back();
    }
    return out + "\n";
  };
  std::string out = column_groups_line(t, widths);
  out += line(t.headers);
  std::vector<std::string> rule;
  for (const std::size_t w : widths) {
    rule.emplace_back(w, '-');
  }
  out += line(rule);
  for (const auto& row : t.cells) {
    out += line(row);
  }
  return out;
}

// Header lines: what ran, where, with which overrides; from the context block.
std::vector<std::string> header_lines(const Report& report) {
  const json::Object& c = report.context;
  std::vector<std::string> lines;
  auto get = [&](const char* key) -> const json::Value* { return c.find(key); };
  std::string first = "dgxhost";
  if (const auto* d = get("dgxhost")) {
    first += " " + (*d)["version"].as_string() + " (" + (*d)["git_revision"].as_string() + ")";
  }
  if (const auto* w = get("workload"); w && w->is_string()) {
    first += "  workload " + w->as_string();
  }
  if (const auto* p = get("plugin"); p && p->is_object()) {
    first += " (plugin " + (*p)["name"].as_string() + " " + (*p)["version"].as_string() + ")";
  }
  if (const auto* pr = get("preset"); pr && pr->is_string()) {
    first += "  preset " + pr->as_string();
  }
  if (const auto* m = get("mode"); m && m->is_string()) {
    first += "  mode " + m->as_string();
  }
  lines.push_back(first);
  if (const auto* h = get("host"); h && h->is_object()) {
    const json::Object& host = h->as_object();
    std::string line = "host " + (host.contains("hostname") ? host.at("hostname").as_string() : "?");
    line += ", " + host.at("cpu").as_string() + " x" + std::to_string(host.at("cpu_count").as_int());
    line += ", " + host.at("os").as_string();
    lines.push_back(line);
  }
  if (const auto* g = get("gpu_summary"); g && g->is_string()) {
    lines.push_back("GPUs " + g->as_string());
  }
  if (const auto* o = get("config_overrides"); o && o->is_array() && !o->as_array().empty()) {
    std::vector<std::string> parts;
    for (const json::Value& v : o->as_array()) {
      parts.push_back(v.as_string());
    }
    lines.push_back("config " + text::join(parts, " "));
  }
  return lines;
}

// Distinct values of the hidden provenance fields (timing, cache, stop) under the tables.
std::vector<std::string> provenance_lines(const std::vector<ResultRow>& rows) {
  std::map<std::string, std::vector<std::string>> seen;
  std::vector<std::string> order;
  for (const ResultRow& r : rows) {
    for (const Field& f : r.fields) {
      if (!f.hidden || (f.key != "timing" && f.key != "cache" && f.key != "stop" && f.key != "source")) {
        continue;
      }
      auto& values = seen[f.key];
      if (values.empty()) {
        order.push_back(f.key);
      }
      if (std::find(values.begin(), values.end(), f.value) == values.end() && values.size() < 3) {
        values.push_back(f.value);
      }
    }
  }
  std::vector<std::string> lines;
  for (const std::string& key : order) {
    lines.push_back(key + ": " + text::join(seen[key], " | "));
  }
  return lines;
}

std::vector<Table> tabulate(const std::vector<ResultRow>& rows, bool all_columns) {
  std::vector<Table> tables;
  for (const RowGroup& group : group_rows(rows)) {
    if (auto nccl = all_columns ? std::nullopt : nccl_tests_table(group.title, group.rows)) {  // nccl_table.cpp
      tables.push_back(std::move(*nccl));
      continue;
    }
    tables.push_back(build_table(group.title, group.rows, all_columns));
  }
  return tables;
}

}  // namespace dgx
