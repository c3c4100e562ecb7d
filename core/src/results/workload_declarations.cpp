#include "dgx/core/results/workload_declarations.hpp"

#include <algorithm>

#include "dgx/core/results/document.hpp"

namespace dgx {

namespace {

Better better_from(const json::Cursor& c) {
  if (const auto better = parse_better(c.string())) {
    return *better;
  }
  c.fail("\"higher\", \"lower\" or \"none\"");
}

ResultMode declared_mode(const json::Cursor& c) {
  const std::string& name = c.string();
  for (const ResultMode m : {ResultMode::measured, ResultMode::projected, ResultMode::reference}) {
    if (to_string(m) == name) {
      return m;
    }
  }
  c.fail("\"measured\", \"projected\" or \"reference\"");
}

ChartKind kind_from(const json::Cursor& c) {
  const std::string& name = c.string();
  for (const ChartKind k : {ChartKind::lines, ChartKind::bars}) {
    if (to_string(k) == name) {
      return k;
    }
  }
  c.fail("\"lines\" or \"bars\"");
}

void set_if(json::Object& o, std::string_view key, const std::string& value) {
  if (!value.empty()) {
    o.set(std::string(key), value);
  }
}

json::Value metric_json(const MetricDeclaration& m) {
  json::Object o;
  o.set("name", m.name);
  o.set("unit", m.unit);
  o.set("better", std::string(better_name(m.better)));
  set_if(o, "label", m.label);
  set_if(o, "help", m.help);
  return o;
}

json::Value chart_json(const ChartDeclaration& c) {
  json::Object o;
  o.set("title", c.title);
  o.set("kind", std::string(to_string(c.kind)));
  o.set("x", c.x);
  o.set("y", c.y);
  set_if(o, "series", c.series);
  set_if(o, "caption", c.caption);
  if (c.mode) {
    o.set("mode", std::string(to_string(*c.mode)));
  }
  set_if(o, "table", c.table);
  set_if(o, "unit", c.unit);
  const std::pair<const char*, bool> flags[] = {
      {"log_x", c.log_x}, {"log_y", c.log_y}, {"pareto", c.pareto}, {"alternative", c.alternative}};
  for (const auto& [name, on] : flags) {
    if (on) {
      o.set(name, true);
    }
  }
  if (c.peak_line) {
    json::Object peak;
    peak.set("metric", c.peak_metric);
    set_if(peak, "label", c.peak_label);
    o.set("peak", std::move(peak));
  }
  return o;
}

bool flag(const json::Cursor& c, std::string_view key) {
  const auto member = c.find(key);
  return member && member->boolean();
}

ChartDeclaration chart_from(const json::Cursor& c) {
  ChartDeclaration chart;
  chart.title = c["title"].string();
  chart.kind = kind_from(c["kind"]);
  chart.x = c["x"].string();
  chart.y = c["y"].string();
  chart.series = c.string_or("series");
  chart.caption = c.string_or("caption");
  if (const auto mode = c.find("mode")) {
    chart.mode = declared_mode(*mode);
  }
  chart.table = c.string_or("table");
  chart.unit = c.string_or("unit");
  chart.log_x = flag(c, "log_x");
  chart.log_y = flag(c, "log_y");
  chart.pareto = flag(c, "pareto");
  chart.alternative = flag(c, "alternative");
  if (const auto peak = c.find("peak")) {
    chart.peak_line = true;
    chart.peak_metric = (*peak)["metric"].string();
    chart.peak_label = peak->string_or("label");
  }
  return chart;
}

}  // namespace

std::string_view better_name(Better better) {
  switch (better) {
  case Better::higher: return "higher";
  case Better::lower: return "lower";
  case Better::none: break;
  }
  return "none";
}

std::optional<Better> parse_better(std::string_view name) {
  for (const Better b : {Better::higher, Better::lower, Better::none}) {
    if (better_name(b) == name) {
      return b;
    }
  }
  return std::nullopt;
}

bool MetricDeclaration::matches(std::string_view metric) const {
  if (!family()) {
    return metric == name;
  }
  const std::string_view prefix = std::string_view(name).substr(0, name.size() - 1);  // "ttft."
  return metric.size() > prefix.size() && metric.starts_with(prefix);
}

std::string_view to_string(ChartKind kind) { return kind == ChartKind::bars ? "bars" : "lines"; }

const MetricDeclaration* WorkloadDeclarations::find_metric(std::string_view metric) const {
  const MetricDeclaration* best = nullptr;
  for (const MetricDeclaration& m : metrics) {
    if (!m.matches(metric)) {
      continue;
    }
    if (!m.family()) {
      return &m;
    }
    if (best == nullptr || m.name.size() > best->name.size()) {
      best = &m;
    }
  }
  return best;
}

json::Value WorkloadDeclarations::to_json() const {
  json::Object o;
  o.set("plugin", plugin);
  o.set("workload", workload);
  json::Array m;
  for (const MetricDeclaration& d : metrics) {
    m.push_back(metric_json(d));
  }
  o.set("metrics", std::move(m));
  if (identity_keys) {
    o.set("identity_keys", json::Array(identity_keys->begin(), identity_keys->end()));
  }
  json::Array c;
  for (const ChartDeclaration& d : charts) {
    c.push_back(chart_json(d));
  }
  o.set("charts", std::move(c));
  return o;
}

const WorkloadDeclarations* declarations_for(const std::vector<WorkloadDeclarations>& all, const ResultRow& row) {
  for (const WorkloadDeclarations& d : all) {
    if (d.workload == row.workload && (d.plugin.empty() || row.plugin.empty() || d.plugin == row.plugin)) {
      return &d;
    }
  }
  return nullptr;
}

const MetricDeclaration* declared_metric(const std::vector<WorkloadDeclarations>& all, const ResultRow& row,
                                         std::string_view metric) {
  const WorkloadDeclarations* d = declarations_for(all, row);
  return d != nullptr ? d->find_metric(metric) : nullptr;
}

Better better_of(const std::vector<WorkloadDeclarations>& all, const ResultRow& row, std::string_view name,
                 std::string_view unit) {
  if (const MetricDeclaration* m = declared_metric(all, row, name)) {
    return m->better;
  }
  return better_direction(name, unit);
}

bool identifies(const WorkloadDeclarations* declarations, std::string_view key) {
  if (key.starts_with("verdict.")) {
    return false;
  }
  if (declarations == nullptr || !declarations->identity_keys) {
    return key != "framework" && key != "system" && key != "gpus";
  }
  return std::any_of(declarations->identity_keys->begin(), declarations->identity_keys->end(),
                     [&](const std::string& id) {
                       if (id.size() > 2 && id.ends_with(".*")) {
                         const std::string_view prefix = std::string_view(id).substr(0, id.size() - 1);
                         return key.size() > prefix.size() && key.starts_with(prefix);
                       }
                       return key == id;
                     });
}

WorkloadDeclarations read_declarations(const json::Cursor& entry) {
  WorkloadDeclarations d;
  d.plugin = entry.string_or("plugin");
  d.workload = entry["workload"].string();
  if (const auto metrics = entry.find("metrics")) {
    for (const json::Cursor& m : metrics->elements()) {
      d.metrics.push_back({m["name"].string(), m["unit"].string(), better_from(m["better"]), m.string_or("label"),
                           m.string_or("help")});
    }
  }
  if (const auto keys = entry.find("identity_keys")) {
    d.identity_keys.emplace();
    for (const json::Cursor& k : keys->elements()) {
      d.identity_keys->push_back(k.string());
    }
  }
  if (const auto charts = entry.find("charts")) {
    for (const json::Cursor& c : charts->elements()) {
      d.charts.push_back(chart_from(c));
    }
  }
  return d;
}

void add_declarations(std::vector<WorkloadDeclarations>& all, WorkloadDeclarations d) {
  if (d.empty()) {
    return;
  }
  const bool known = std::any_of(all.begin(), all.end(), [&](const WorkloadDeclarations& other) {
    return other.workload == d.workload && other.plugin == d.plugin;
  });
  if (!known) {
    all.push_back(std::move(d));
  }
}

}  // namespace dgx
