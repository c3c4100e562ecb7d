#include "html_charts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>

#include "dgx/core/report/table.hpp"
#include "dgx/core/support/quantity.hpp"
#include "dgx/core/support/text.hpp"
#include "html_limits.hpp"

namespace dgx::html {

namespace {

using Rows = std::vector<const ResultRow*>;

// Chart descriptions -----------------------------------------------------------------------------------------------

// `unit` lets report.js write a log axis' ticks as such ("$2M").
json::Object axis(const std::string& title, bool log = false, const std::string& unit = {}) {
  json::Object a;
  a.set("title", title);
  a.set("log", log);
  if (!unit.empty()) {
    a.set("unit", unit);
  }
  return a;
}

struct Series {
  std::string label;
  json::Array points;  // [x, y]
  bool line = true;
  std::string marker = "circle";
  int size = 3;
};

json::Object series_json(const Series& s) {
  json::Object o;
  o.set("label", s.label);
  o.set("points", s.points);
  o.set("line", s.line);
  o.set("marker", s.marker);
  o.set("size", s.size);
  return o;
}

json::Object hline(const std::string& label, double y) {
  json::Object h;
  h.set("label", label);
  h.set("y", y);
  return h;
}

json::Object xy_chart(const std::string& title, json::Object x, json::Object y, const std::vector<Series>& series,
                      const std::string& caption, json::Array hlines = {}) {
  json::Object c;
  c.set("kind", "xy");
  c.set("title", title);
  c.set("caption", caption);
  c.set("x", std::move(x));
  c.set("y", std::move(y));
  json::Array s;
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  for (const Series& one : series) {
    s.push_back(series_json(one));
    for (const json::Value& p : one.points) {
      lo = std::min(lo, p[0].as_number());
      hi = std::max(hi, p[0].as_number());
    }
  }
  c.set("series", std::move(s));
  c.set("hlines", std::move(hlines));
  c.set("x_min", std::isfinite(lo) ? lo : 0.0);
  c.set("x_max", std::isfinite(hi) ? hi : 1.0);
  return c;
}

// Bar labels: long ones wrap into lines of at most this many characters (Chart.js draws a list as lines).
constexpr std::size_t kLabelLine = 44;

json::Array wrap_label(const std::string& label) {
  json::Array lines;
  std::string line;
  for (const std::string& word : text::split(label, ' ')) {
    if (!line.empty() && line.size() + 1 + word.size() > kLabelLine) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty() || lines.empty()) {
    lines.push_back(line);
  }
  return lines;
}

// The canvas of a bar chart: bars of long or many labels lie horizontal, the labels wrapped beside them, the canvas
// as tall as its lines need (a vertical chart squeezed such labels under a plot of a few pixels).
void bar_layout(json::Object& c, const std::vector<std::string>& categories) {
  const bool long_labels =
      std::any_of(categories.begin(), categories.end(), [](const std::string& l) { return l.size() > 16; });
  if (!long_labels && categories.size() <= 12) {
    c.set("categories", json::Array(categories.begin(), categories.end()));
    return;
  }
  json::Array wrapped;
  for (const std::string& l : categories) {
    wrapped.push_back(wrap_label(l));
  }
  c.set("categories", std::move(wrapped));
  c.set("horizontal", true);
  c.set("width", 960);
  std::size_t most = 1;  // the tallest label sets every bar's slot: Chart.js gives each category the same height
  for (const json::Value& one : c.at("categories").as_array()) {
    most = std::max(most, one.as_array().size());
  }
  c.set("height", std::max<std::size_t>(360, 130 + (16 * most + 12) * categories.size()));
}

json::Object bar_chart(const std::string& title, const std::string& x_title, json::Object y,
                       const std::vector<std::string>& categories, const std::string& label,
                       const std::vector<double>& values, const std::string& caption, json::Array hlines = {},
                       const std::vector<std::string>& verdicts = {}) {
  json::Object c;
  c.set("kind", "bar");
  c.set("title", title);
  c.set("caption", caption);
  c.set("x", axis(x_title));
  c.set("y", std::move(y));
  bar_layout(c, categories);
  json::Object bars;
  bars.set("label", label);
  bars.set("values", json::Array(values.begin(), values.end()));
  if (!verdicts.empty()) {
    bars.set("verdicts", json::Array(verdicts.begin(), verdicts.end()));
  }
  c.set("bars", json::Array{json::Value(std::move(bars))});
  c.set("hlines", std::move(hlines));
  return c;
}

// Reading rows -----------------------------------------------------------------------------------------------------

std::optional<double> metric(const ResultRow& r, const char* name) {
  const Metric* m = r.find_metric(name);
  return m != nullptr && std::isfinite(m->value) ? std::optional(m->value) : std::nullopt;
}

std::optional<double> metric_in(const ResultRow& r, const char* name, const char* unit) {
  const Metric* m = r.find_metric(name);
  if (m == nullptr || !std::isfinite(m->value)) {
    return std::nullopt;
  }
  return convert(m->value, m->unit, unit);
}

std::string field(const ResultRow& r, const char* key) {
  const Field* f = r.find_field(key);
  return f != nullptr ? f->value : std::string();
}

// A short name of a row among `rows`: its label, else the values of the config keys that vary among them.
std::string row_name(const ResultRow& r, const Rows& rows) {
  if (!r.label.empty()) {
    return r.label;
  }
  if (const Field* f = r.find_field("configuration")) {
    return f->value;
  }
  std::vector<std::string> parts;
  for (const auto& [key, value] : r.config) {
    const bool varies = std::any_of(rows.begin(), rows.end(), [&, &k = key, &v = value](const ResultRow* o) {
      const json::Value* other = o->config.find(k);
      return other != nullptr && !(*other == v);
    });
    if (varies) {
      parts.push_back(value.is_string() ? value.as_string() : json::write(value, 0));
    }
  }
  return parts.empty() ? r.workload : text::join(parts, " ");
}

Rows rows_where(const Report& report, const std::function<bool(const ResultRow&)>& keep) {
  Rows out;
  for (const ResultRow& r : report.rows) {
    if (keep(r)) {
      out.push_back(&r);
    }
  }
  return out;
}

// The workloads' own charts, as they declare them (ABI 1.1, dgx_chart_desc) ----------------------------------------

// A name of a chart declaration read from a row: a metric, a config key, a field (info), or the row's own
// workload, table, mode or label. `number` where it is one.
struct Looked {
  std::string text;
  std::optional<double> number;
};

std::optional<Looked> look_up(const ResultRow& r, const std::string& name) {
  if (const Metric* m = r.find_metric(name)) {
    if (!std::isfinite(m->value)) {
      return std::nullopt;
    }
    return Looked{text::format_number(m->value, 6), m->value};
  }
  if (const json::Value* v = r.config.find(name); v != nullptr && !v->is_null()) {
    return Looked{r.config_text(name), v->is_number() ? std::optional(v->as_number()) : std::nullopt};
  }
  if (const Field* f = r.find_field(name)) {
    char* end = nullptr;
    const double number = std::strtod(f->value.c_str(), &end);
    const bool numeric = !f->value.empty() && end != nullptr && *end == '\0' && std::isfinite(number);
    return Looked{f->value, numeric ? std::optional(number) : std::nullopt};
  }
  if (name == "workload" || name == "table" || name == "mode" || name == "label") {
    const std::string value = name == "workload" ? r.workload
                              : name == "table"  ? (r.table.empty() ? r.workload : r.table)
                              : name == "mode"   ? std::string(to_string(r.mode))
                                                 : r.label;
    return value.empty() ? std::nullopt : std::optional(Looked{value, std::nullopt});
  }
  return std::nullopt;
}

// The series a row belongs to: "a|b,c" joins, for each ','-part, the first alternative the row has; a row with
// none of them belongs to its workload's.
std::string series_of(const ResultRow& r, const std::string& spec) {
  std::vector<std::string> parts;
  for (const std::string& part : text::split(spec, ',')) {
    for (const std::string& alternative : text::split(part, '|')) {
      if (const auto v = look_up(r, alternative); v && !v->text.empty()) {
        parts.push_back(v->text);
        break;
      }
    }
  }
  return parts.empty() ? r.workload : text::join(parts, " ");
}

// The rows of one declared chart with their y in the chart's unit.
struct ChartRow {
  const ResultRow* row;
  std::string series;
  Looked x;
  double y;
};

struct ChartData {
  std::vector<ChartRow> rows;
  std::string unit;  // y's
};

ChartData chart_data(const Report& report, const WorkloadDeclarations& d, const ChartDeclaration& c) {
  ChartData data{{}, c.unit};
  for (const ResultRow& r : report.rows) {
    const Metric* y = r.find_metric(c.y);
    if (declarations_for(report.workloads, r) != &d || (c.mode && r.mode != *c.mode) ||
        (!c.table.empty() && (r.table.empty() ? r.workload : r.table) != c.table) || y == nullptr ||
        !std::isfinite(y->value)) {
      continue;
    }
    const auto x = look_up(r, c.x);
    if (!x || (c.kind == ChartKind::lines && !x->number)) {
      continue;
    }
    if (data.unit.empty()) {
      data.unit = y->unit;
    }
    if (const auto value = convert(y->value, y->unit, data.unit)) {
      data.rows.push_back({&r, series_of(r, c.series), *x, *value});
    }
  }
  return data;
}

// The peak `row` gives in the chart's unit: the peak metric itself, or y as its percent of the peak.
std::optional<double> peak_of(const ChartDeclaration& c, const ChartRow& row, const std::string& unit) {
  const Metric* peak = row.row->find_metric(c.peak_metric);
  if (peak == nullptr || !std::isfinite(peak->value) || peak->value <= 0) {
    return std::nullopt;
  }
  if (peak->unit == "%") {
    return row.y * 100 / peak->value;
  }
  return convert(peak->value, peak->unit, unit);
}

// An axis' title: the metric's declared label, else the label its rows give it ("TTFT p99" for ttft.p99, which a
// wildcard declares), else its name; then the unit.
std::string axis_title(const WorkloadDeclarations& d, const ChartData& data, const std::string& name,
                       const std::string& unit) {
  const MetricDeclaration* m = d.find_metric(name);
  const Metric* in_row = data.rows.empty() ? nullptr : data.rows.front().row->find_metric(name);
  const std::string shown = m != nullptr && !m->label.empty()             ? m->label
                            : in_row != nullptr && !in_row->label.empty() ? in_row->label
                                                                          : name;
  return unit.empty() || unit == "1" ? shown : shown + " [" + unit + "]";
}

// The unit `metric` has in the rows (the chart may draw y in another: ms for seconds).
std::string row_unit(const ChartData& data, const std::string& metric) {
  const Metric* m = data.rows.empty() ? nullptr : data.rows.front().row->find_metric(metric);
  return m != nullptr ? m->unit : std::string();
}

std::string peak_text(const ChartDeclaration& c, const std::string& series, double peak, const std::string& unit) {
  return (c.peak_label.empty() ? std::string("peak") : c.peak_label) + (series.empty() ? "" : " " + series) + " " +
         text::format_number(peak, 4) + " " + unit;
}

// A log x axis of a few whole numbers (GPU counts) is labelled at the data's own values: 512, 1024, 2048 read better
// than 500, 1k, 2k. Other log axes get 1-2-5 ticks (report.js).
constexpr std::size_t kMostDataTicks = 16;

void ticks_at_data(json::Object& x, const ChartData& data) {
  std::vector<double> values;
  for (const ChartRow& r : data.rows) {
    const double v = *r.x.number;
    if (v != std::floor(v) || v <= 0) {
      return;
    }
    if (std::find(values.begin(), values.end(), v) == values.end()) {
      values.push_back(v);
    }
  }
  if (values.size() <= kMostDataTicks) {
    std::sort(values.begin(), values.end());
    x.set("ticks_at", json::Array(values.begin(), values.end()));
  }
}

// Series that coincide: a price provider changes what a run costs, not how long it trains, so the days of each
// provider are one line drawn over the others, which looked like the same data copied. Such series are drawn as one
// line named for all of them ("fp8 aws/gcp/nebius"), and the caption says which config keys set them apart.

bool same_points(const json::Array& a, const json::Array& b) {
  const auto close = [](double x, double y) { return std::abs(x - y) <= 1e-9 * std::max(std::abs(x), std::abs(y)); };
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [&](const json::Value& p, const json::Value& q) {
           return close(p[0].as_number(), q[0].as_number()) && close(p[1].as_number(), q[1].as_number());
         });
}

// "fp8 aws", "fp8 gcp" -> "fp8 aws/gcp": the words where the names differ joined by '/', else the names by " = ".
std::string merged_name(const std::vector<std::string>& names) {
  std::vector<std::vector<std::string>> words;
  for (const std::string& n : names) {
    words.push_back(text::split(n, ' '));
  }
  if (!std::all_of(words.begin(), words.end(), [&](const auto& w) { return w.size() == words[0].size(); })) {
    return text::join(names, " = ");
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < words[0].size(); ++i) {
    std::vector<std::string> at;
    for (const auto& w : words) {
      if (std::find(at.begin(), at.end(), w[i]) == at.end()) {
        at.push_back(w[i]);
      }
    }
    out.push_back(text::join(at, "/"));
  }
  return text::join(out, " ");
}

// The config keys whose values differ among `rows` of the same x: what sets coinciding series apart.
std::vector<std::string> keys_apart(const std::vector<const ChartRow*>& rows) {
  std::vector<std::string> keys;
  for (const ChartRow* a : rows) {
    for (const ChartRow* b : rows) {
      if (a->x.text != b->x.text) {
        continue;
      }
      for (const auto& [key, value] : a->row->config) {
        const json::Value* other = b->row->config.find(key);
        if ((other == nullptr || !(*other == value)) && std::find(keys.begin(), keys.end(), key) == keys.end()) {
          keys.push_back(key);
        }
      }
    }
  }
  return keys;
}

std::string and_list(const std::vector<std::string>& items) {
  if (items.size() < 2) {
    return items.empty() ? std::string() : items[0];
  }
  return text::join(std::vector<std::string>(items.begin(), items.end() - 1), ", ") + " and " + items.back();
}

// Merges the series of `series` (by name, with their rows) that coincide; returns a sentence for each merge.
std::vector<std::string> merge_coinciding(std::vector<Series>& series,
                                          const std::map<std::string, std::vector<const ChartRow*>>& rows,
                                          const std::string& what) {
  std::vector<std::string> said;
  for (std::size_t i = 0; i < series.size(); ++i) {
    std::vector<std::string> names{series[i].label};
    std::vector<const ChartRow*> all = rows.at(series[i].label);
    for (std::size_t j = i + 1; j < series.size();) {
      if (same_points(series[i].points, series[j].points)) {
        names.push_back(series[j].label);
        all.insert(all.end(), rows.at(series[j].label).begin(), rows.at(series[j].label).end());
        series.erase(series.begin() + static_cast<std::ptrdiff_t>(j));
      } else {
        ++j;
      }
    }
    if (names.size() > 1) {
      series[i].label = merged_name(names);
      const std::vector<std::string> apart = keys_apart(all);
      said.push_back(
          and_list(names) + " have the same " + what + ", drawn as one line" +
          (apart.empty() ? std::string(".") : " (they differ in " + and_list(apart) + ", which leaves it unchanged)."));
    }
  }
  return said;
}

json::Object declared_lines(const WorkloadDeclarations& d, const ChartDeclaration& c, const ChartData& data,
                            const std::vector<Limit>& limits) {
  std::map<std::string, Series> by_series;
  std::map<std::string, std::vector<const ChartRow*>> rows_of;
  Series front{"Pareto front", {}, true, "circle", 4}, recommended{"recommended", {}, false, "star", 12};
  json::Array lines;
  for (const ChartRow& r : data.rows) {
    const json::Array point{json::Value(*r.x.number), json::Value(r.y)};
    Series& s = by_series[r.series];
    s.label = r.series;
    rows_of[r.series].push_back(&r);
    s.line = !c.pareto;
    s.points.push_back(point);
    if (c.pareto && field(*r.row, "pareto") == "*") {
      front.points.push_back(point);
    }
    if (c.pareto && field(*r.row, "recommended").rfind("yes", 0) == 0) {  // "yes", "yes, deadline"
      recommended.points.push_back(point);
    }
    if (const auto peak = c.peak_line && lines.empty() ? peak_of(c, r, data.unit) : std::nullopt) {
      lines.push_back(hline(peak_text(c, "", *peak, data.unit), *peak));
    }
  }
  const auto by_x = [](const json::Value& a, const json::Value& b) { return a[0].as_number() < b[0].as_number(); };
  std::vector<Series> series;
  for (auto& [name, s] : by_series) {
    std::sort(s.points.begin(), s.points.end(), by_x);
    series.push_back(std::move(s));
  }
  std::string caption = c.caption;
  if (!c.pareto) {  // a Pareto chart's points are not lines
    const MetricDeclaration* m = d.find_metric(c.y);
    for (const std::string& sentence :
         merge_coinciding(series, rows_of, m != nullptr && !m->label.empty() ? m->label : c.y)) {
      caption += (caption.empty() ? "" : " ") + sentence;
    }
  }
  std::sort(front.points.begin(), front.points.end(), by_x);
  for (Series* extra : {&front, &recommended}) {
    if (!extra->points.empty()) {
      series.push_back(std::move(*extra));
    }
  }
  const std::string x_unit = row_unit(data, c.x);
  json::Object x = axis(axis_title(d, data, c.x, x_unit), c.log_x, x_unit);
  if (c.log_x) {
    ticks_at_data(x, data);
  }
  json::Object chart = xy_chart(c.title, std::move(x), axis(axis_title(d, data, c.y, data.unit), c.log_y, data.unit),
                                series, caption, std::move(lines));
  json::Array bounds;
  add_limits(bounds, limits, {"x", x_unit, c.x, x_unit});
  add_limits(bounds, limits, {"y", data.unit, c.y, row_unit(data, c.y)});
  if (!bounds.empty()) {
    chart.set("limits", std::move(bounds));
  }
  return chart;
}

json::Object declared_bars(const WorkloadDeclarations& d, const ChartDeclaration& c, const ChartData& data,
                           const std::vector<Limit>& limits) {
  std::vector<std::string> categories, names;
  std::map<std::string, std::map<std::string, double>> values;  // series -> category -> y
  json::Array lines;
  for (const ChartRow& r : data.rows) {
    if (std::find(categories.begin(), categories.end(), r.x.text) == categories.end()) {
      categories.push_back(r.x.text);
    }
    if (values.find(r.series) == values.end()) {
      names.push_back(r.series);
      if (const auto peak = c.peak_line ? peak_of(c, r, data.unit) : std::nullopt) {
        lines.push_back(hline(peak_text(c, c.series.empty() ? "" : r.series, *peak, data.unit), *peak));  // per series
      }
    }
    values[r.series].emplace(r.x.text, r.y);
  }
  json::Object chart = bar_chart(c.title, axis_title(d, data, c.x, row_unit(data, c.x)),
                                 axis(axis_title(d, data, c.y, data.unit), c.log_y, data.unit), categories,
                                 names.front(), {}, c.caption, std::move(lines));
  json::Array bars;
  for (const std::string& name : names) {
    json::Array column;
    for (const std::string& category : categories) {
      const auto it = values[name].find(category);
      column.push_back(it != values[name].end() ? json::Value(it->second) : json::Value());
    }
    json::Object b;
    b.set("label", name);
    b.set("values", std::move(column));
    bars.push_back(std::move(b));
  }
  chart.set("bars", std::move(bars));
  json::Array bounds;
  add_limits(bounds, limits, {"y", data.unit, c.y, row_unit(data, c.y)});
  if (!bounds.empty()) {
    chart.set("limits", std::move(bounds));
  }
  return chart;
}

// One declared chart, or nullopt when the host leaves it out (abi/v1.h): no rows, every y zero, a line of one point.
std::optional<json::Object> declared_chart(const Report& report, const WorkloadDeclarations& d,
                                           const ChartDeclaration& c, const std::vector<Limit>& limits) {
  const ChartData data = chart_data(report, d, c);
  const bool all_zero = std::all_of(data.rows.begin(), data.rows.end(), [](const ChartRow& r) { return r.y == 0; });
  if (data.rows.empty() || all_zero || (c.kind == ChartKind::lines && data.rows.size() < 2)) {
    return std::nullopt;
  }
  return c.kind == ChartKind::lines ? declared_lines(d, c, data, limits) : declared_bars(d, c, data, limits);
}

void workload_charts(const Report& report, std::vector<json::Object>& out) {
  const std::vector<Limit> limits = limits_of(report.context);
  for (const WorkloadDeclarations& d : report.workloads) {
    bool previous_drawn = true;
    for (const ChartDeclaration& c : d.charts) {
      if (c.alternative && previous_drawn) {
        continue;  // an alternative view stands in only for a chart left out
      }
      auto chart = declared_chart(report, d, c, limits);
      previous_drawn = chart.has_value();
      if (chart) {
        out.push_back(std::move(*chart));
      }
    }
  }
}

// Verdicts: ratios with the threshold -----------------------------------------------------------------------------

void verdict_charts(const Report& report, std::vector<json::Object>& out) {
  std::vector<std::string> names, verdicts;
  std::vector<double> ratios;
  const Rows all = rows_where(report, [](const ResultRow&) { return true; });
  double threshold = 0.95;
  for (const ResultRow& r : report.rows) {
    if (const auto ratio = metric(r, "ratio_to_reference")) {
      names.push_back(row_name(r, all));
      ratios.push_back(*ratio);
      verdicts.push_back(field(r, "verdict"));
      if (const Field* t = r.find_field("threshold")) {
        threshold = std::strtod(t->value.c_str(), nullptr);
      }
    }
  }
  if (ratios.empty()) {
    return;
  }
  out.push_back(bar_chart("Ratio to the reference", "row", axis("ratio (above 1: better)"), names, "ratio", ratios,
                          "Each measured or projected row against its reference row; pass at or above the threshold.",
                          json::Array{json::Value(hline("threshold " + text::format_number(threshold, 3), threshold))},
                          verdicts));
}

// dgxhost verdict: each run against the projection of its configuration (the band around it) and the reference,
// all relative to the projection.
void projection_charts(const Report& report, std::vector<json::Object>& out) {
  const Rows all = rows_where(report, [](const ResultRow&) { return true; });
  std::vector<std::string> names, verdicts;
  json::Array band, measured, reference;
  for (const ResultRow& r : report.rows) {
    const auto ratio = metric(r, "ratio_to_projection");
    const auto width = metric_in(r, "projection_band", "1");
    if (!ratio || !width) {
      continue;
    }
    names.push_back(row_name(r, all));
    band.emplace_back(json::Array{1 - *width, 1 + *width});
    measured.push_back(*ratio);
    verdicts.emplace_back(field(r, "verdict.projection") == "slower" ? "fail" : "pass");
    const auto to_reference = metric(r, "ratio_to_reference");
    reference.push_back(to_reference && *to_reference > 0 ? json::Value(*ratio / *to_reference) : json::Value());
  }
  if (names.empty()) {
    return;
  }
  auto bars = [](const std::string& label, json::Array values, const std::string& color) {
    json::Object b;
    b.set("label", label);
    b.set("values", std::move(values));
    if (!color.empty()) {
      b.set("color", color);
    }
    return json::Value(std::move(b));
  };
  json::Object c;
  c.set("kind", "bar");
  c.set("title", "Each run against its projection and its reference");
  c.set("caption", "Relative to the projection of exactly the run's configuration (1): the grey bar is the "
                   "projection's accuracy band, the run red when it is slower than the band allows, the published "
                   "reference in blue.");
  c.set("x", axis("run"));
  c.set("y", axis("relative to the projection (above 1: faster)"));
  c.set("categories", json::Array(names.begin(), names.end()));
  json::Object run = bars("run", std::move(measured), "").as_object();
  run.set("verdicts", json::Array(verdicts.begin(), verdicts.end()));
  c.set("bars", json::Array{bars("projection band", std::move(band), "#c8ccd1"), json::Value(std::move(run)),
                            bars("reference", std::move(reference), "#1f77b4")});
  c.set("hlines", json::Array{json::Value(hline("projection", 1))});
  out.push_back(std::move(c));
}

void compare_charts(const Report& report, std::vector<json::Object>& out) {
  std::vector<std::string> names, verdicts;
  std::vector<double> goodness;
  for (const ResultRow& r : report.rows) {
    if (text::starts_with(r.table, "compare ") && metric(r, "relative")) {
      const Rows same = rows_where(report, [&](const ResultRow& o) { return o.table == r.table; });
      names.push_back(field(r, "metric") + " " + row_name(r, same));
      goodness.push_back(*metric(r, "relative"));  // the table's "B vs A" column: one definition
      verdicts.push_back(field(r, "verdict"));
    }
  }
  if (goodness.empty()) {
    return;
  }
  double threshold = 0.05;
  if (const json::Value* c = report.context.find("compare"); c != nullptr && c->is_object()) {
    threshold = c->as_object().at("threshold").as_number();
  }
  out.push_back(
      bar_chart("B against A", "metric and case", axis("B vs A (above 1: B better)"), names, "B vs A", goodness,
                "Red: a significant regression; green: a significant improvement; grey: no significant "
                "difference.",
                json::Array{json::Value(hline("-" + text::format_number(100 * threshold, 3) + "%", 1 - threshold)),
                            json::Value(hline("+" + text::format_number(100 * threshold, 3) + "%", 1 + threshold))},
                verdicts));
}

// History: each metric over time, a line per series, its change points marked ------------------------------------

void history_charts(const Report& report, std::vector<json::Object>& out) {
  std::vector<std::string> tables;  // one chart per metric, in the report's order
  for (const ResultRow& r : report.rows) {
    if (text::starts_with(r.table, "history points ") &&
        std::find(tables.begin(), tables.end(), r.table) == tables.end()) {
      tables.push_back(r.table);
    }
  }
  for (const std::string& table : tables) {
    const std::string name = table.substr(std::string("history points ").size());
    std::string unit;
    std::vector<Series> lines;
    Series changes{"change point", {}, false, "triangle", 9};
    std::map<std::string, std::size_t> line_of;
    for (const ResultRow& r : report.rows) {
      const Metric* m = r.table == table ? r.find_metric(name) : nullptr;
      const Field* epoch = r.find_field("epoch");
      if (m == nullptr || epoch == nullptr || !std::isfinite(m->value)) {
        continue;
      }
      unit = unit.empty() ? m->unit : unit;
      const auto y = convert(m->value, m->unit, unit);
      if (!y) {
        continue;
      }
      const std::string series = field(r, "series").empty() ? r.label : field(r, "series");
      auto [it, fresh] = line_of.emplace(series, lines.size());
      if (fresh) {
        lines.push_back(Series{series, {}});
      }
      const json::Array point{json::Value(1000 * std::stod(epoch->value)), json::Value(*y)};
      lines[it->second].points.push_back(point);
      if (field(r, "change_point") == "yes") {
        changes.points.push_back(point);
      }
    }
    if (lines.empty()) {
      continue;
    }
    const bool marked = !changes.points.empty();
    if (marked) {
      lines.push_back(changes);
    }
    json::Object x = axis("run time (UTC)");
    x.set("time", true);
    out.push_back(xy_chart(name + " over time", x, axis(name + " [" + unit + "]"), lines,
                           "Measured, imported or projected values as recorded in the store, a line per series." +
                               std::string(marked ? " Triangles: where a detected change begins." : "")));
  }
}

// The platform check's plan: one chart per reference metric, a bar per reference row and the systems it serves --

// " (h100-sxm, h200-sxm)"; a long list as its first two and a count (the table lists them all).
std::string systems_in_brackets(const std::string& systems) {
  if (systems.empty()) {
    return {};
  }
  const std::vector<std::string> names = text::split(systems, ',');
  if (names.size() <= 3) {
    return " (" + systems + ")";
  }
  return " (" + names[0] + "," + names[1] + " and " + std::to_string(names.size() - 2) + " more)";
}

void plan_charts(const Report& report, std::vector<json::Object>& out) {
  std::vector<std::string> metrics;  // in the order the rows have them
  std::map<std::string, std::pair<std::vector<std::string>, std::vector<double>>> bars;
  std::map<std::string, std::string> units;
  for (const ResultRow& r : report.rows) {
    if (r.table != "platform-check plan") {
      continue;
    }
    for (const Metric& m : r.metrics) {
      if (!std::isfinite(m.value)) {
        continue;
      }
      if (bars.find(m.name) == bars.end()) {
        metrics.push_back(m.name);
        units[m.name] = m.unit;
      }
      bars[m.name].first.push_back(r.workload + ": " + r.label + systems_in_brackets(field(r, "systems")));
      bars[m.name].second.push_back(m.value);
    }
  }
  for (const std::string& m : metrics) {
    const auto& [names, values] = bars[m];
    out.push_back(bar_chart("Platform-check references: " + m, "reference", axis(m + " [" + units[m] + "]"), names, m,
                            values,
                            "The published or derived reference each step's measured rows would be held against, on "
                            "the systems in brackets (the table says when each applies)."));
  }
}

// Anything else: one bar chart per table of its first judged metric ------------------------------------------------

// By row group, not by rendered table: a table may be titled otherwise (a collective sweep's "all_reduce (measured)",
// in nccl-tests' layout), and looking its rows up by that title found none, and read past them.
void generic_charts(const Report& report, std::vector<json::Object>& out) {
  for (const RowGroup& group : group_rows(report.rows)) {
    const Rows& rows = group.rows;
    const Metric* first = nullptr;
    for (const Metric& m : rows.front()->metrics) {
      if (!m.hidden && better_of(report.workloads, *rows.front(), m.name, m.unit) != Better::none) {
        first = &m;
        break;
      }
    }
    if (first == nullptr) {
      continue;
    }
    std::vector<std::string> names;
    std::vector<double> values;
    for (const ResultRow* r : rows) {
      if (const auto v = metric_in(*r, first->name.c_str(), first->unit.c_str())) {
        names.push_back(std::string(to_string(r->mode)) + " " + row_name(*r, rows));
        values.push_back(*v);
      }
    }
    out.push_back(bar_chart(
        group.title + ": " + first->name, "row", axis(first->name + " [" + first->unit + "]"), names, first->name,
        values, std::string(to_string(better_of(report.workloads, *rows.front(), first->name, first->unit))) + "."));
  }
}

}  // namespace

std::vector<json::Object> charts_for(const Report& report) {
  std::vector<json::Object> out;
  workload_charts(report, out);
  verdict_charts(report, out);
  projection_charts(report, out);
  compare_charts(report, out);
  plan_charts(report, out);
  history_charts(report, out);
  if (out.empty()) {
    generic_charts(report, out);
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i].set("id", "chart-" + std::to_string(i + 1));
  }
  return out;
}

}  // namespace dgx::html
