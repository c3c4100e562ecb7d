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

namespace dgx::html {

namespace {

using Rows = std::vector<const ResultRow*>;

// Chart descriptions -----------------------------------------------------------------------------------------------

json::Object axis(const std::string& title, bool log = false) {
  json::Object a;
  a.set("title", title);
  a.set("log", log);
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

// Explore: days and cost against GPUs per precision, the Pareto front -----------------------------------------------

void explore_charts(const Report& report, std::vector<json::Object>& out) {
  const Rows rows = rows_where(report, [](const ResultRow& r) {
    return r.mode == ResultMode::projected && r.config.contains("gpus") && metric(r, "days_to_train").has_value();
  });
  if (rows.size() < 2) {
    return;
  }
  std::map<std::string, Series> days, cost, all;
  Series front{"Pareto front", {}, true, "circle", 4}, recommended{"recommended", {}, false, "star", 12};
  for (const ResultRow* r : rows) {
    // One line per series: the precision, and the framework release and the price provider when an explore compares
    // them (its "series" field); merging them made one zig-zagging line per precision.
    const std::string series = field(*r, "series");
    const std::string precision = series.empty() ? r->config_text("precision") : series;
    const double gpus = r->config.at("gpus").as_number(), d = *metric(*r, "days_to_train");
    days[precision].label = cost[precision].label = all[precision].label = precision;
    days[precision].points.push_back(json::Array{gpus, d});
    const auto usd = metric(*r, "cost_usd");
    if (!usd) {
      continue;
    }
    cost[precision].points.push_back(json::Array{gpus, *usd});
    all[precision].points.push_back(json::Array{*usd, d});
    all[precision].line = false;
    if (field(*r, "pareto") == "*") {
      front.points.push_back(json::Array{*usd, d});
    }
    if (field(*r, "recommended").rfind("yes", 0) == 0) {  // "yes", "yes, deadline": the one recommendation
      recommended.points.push_back(json::Array{*usd, d});
    }
  }
  auto values = [](const std::map<std::string, Series>& m) {
    std::vector<Series> v;
    for (const auto& [k, s] : m) {
      if (!s.points.empty()) {
        v.push_back(s);
      }
    }
    return v;
  };
  out.push_back(xy_chart("Days to train against GPU count", axis("GPUs", true), axis("days", true), values(days),
                         "The fastest layout that fits per GPU count and precision (projected)."));
  if (front.points.empty() && values(cost).empty()) {
    return;
  }
  out.push_back(xy_chart("Cost against GPU count", axis("GPUs", true), axis("cost [USD]"), values(cost),
                         "Training cost at the assumed price per GPU-hour (projected)."));
  std::sort(front.points.begin(), front.points.end(),
            [](const json::Value& a, const json::Value& b) { return a[0].as_number() < b[0].as_number(); });
  std::vector<Series> pareto = values(all);
  pareto.push_back(front);
  if (!recommended.points.empty()) {
    pareto.push_back(recommended);
  }
  out.push_back(xy_chart("Pareto front: days against cost", axis("cost [USD]"), axis("days", true), pareto,
                         "No configuration on the front trains both faster and cheaper than another; the star is "
                         "the recommendation."));
}

// Collectives: bus bandwidth against message size -----------------------------------------------------------------

void comm_charts(const Report& report, std::vector<json::Object>& out) {
  const Rows rows = rows_where(report, [](const ResultRow& r) {
    return r.mode == ResultMode::measured && metric(r, "size") && metric_in(r, "busbw", "GB/s");
  });
  if (rows.empty()) {
    return;
  }
  // One rank moves nothing over a bus (busbw = 0 for all_reduce): then the algorithm bandwidth says more.
  const bool bus = std::any_of(rows.begin(), rows.end(), [](const ResultRow* r) { return *metric(*r, "busbw") > 0; });
  const char* shown = bus ? "busbw" : "algbw";
  std::map<std::string, Series> by_case;
  std::optional<double> peak;
  for (const ResultRow* r : rows) {
    std::string name = r->config_text("comm.collective");
    if (name.empty()) {
      name = r->workload;
    }
    const std::string placement = r->config_text("comm.placement");
    if (!placement.empty()) {
      name += " " + placement;
    }
    const double value = metric_in(*r, shown, "GB/s").value_or(0);
    by_case[name].label = name;
    by_case[name].points.push_back(json::Array{*metric(*r, "size"), value});
    if (const auto pct = metric(*r, "busbw.peak"); bus && pct && *pct > 0 && !peak) {
      peak = value * 100 / *pct;
    }
  }
  std::vector<Series> series;
  for (const auto& [k, s] : by_case) {
    series.push_back(s);
  }
  json::Array lines;
  if (peak) {
    lines.push_back(hline("link peak " + text::format_number(*peak, 4) + " GB/s per direction", *peak));
  }
  out.push_back(xy_chart(bus ? "Bus bandwidth against message size" : "Algorithm bandwidth against message size",
                         axis("size [B]", true), axis(std::string(shown) + " [GB/s]"), series,
                         bus ? "Measured. nccl-tests' bus bandwidth: algbw x 2(n-1)/n for all_reduce, (n-1)/n for "
                               "all_gather, reduce_scatter and alltoall, 1 otherwise."
                             : "Measured. algbw = size / time: with one rank no data crosses a bus, so busbw is 0.",
                         std::move(lines)));
}

// Measured layer ops: time per op, TFLOP/s against the peak --------------------------------------------------------

void layer_charts(const Report& report, std::vector<json::Object>& out) {
  std::map<std::string, Rows> by_precision;
  for (const ResultRow& r : report.rows) {
    if (r.table == "llm-layer ops" && metric(r, "time")) {
      by_precision[r.config_text("precision")].push_back(&r);
    }
  }
  for (const auto& [precision, rows] : by_precision) {
    std::vector<std::string> ops, compute_ops;
    std::vector<double> ms, tflops;
    std::optional<double> peak;
    for (const ResultRow* r : rows) {
      ops.push_back(r->config_text("op"));
      ms.push_back(*metric_in(*r, "time", "ms"));
      if (const auto t = metric(*r, "tflops")) {
        compute_ops.push_back(r->config_text("op"));
        tflops.push_back(*t);
        if (const auto pct = metric(*r, "peak_pct"); pct && *pct > 0 && !peak) {
          peak = *t * 100 / *pct;
        }
      }
    }
    out.push_back(bar_chart("Time per op, " + precision, "op", axis("time [ms]"), ops, "time", ms,
                            "One layer's forward and backward, op by op (measured, device events)."));
    if (tflops.empty()) {
      continue;
    }
    json::Array lines;
    if (peak) {
      lines.push_back(hline("dense peak " + text::format_number(*peak, 4) + " TFLOP/s", *peak));
    }
    out.push_back(bar_chart(
        "TFLOP/s per op against the peak, " + precision, "op", axis("TFLOP/s"), compute_ops, "TFLOP/s", tflops,
        "GEMMs and attention (measured) against the dense peak of the system profile (reference).", std::move(lines)));
  }
}

// Inference: throughput against per-user speed ---------------------------------------------------------------------

void inference_charts(const Report& report, std::vector<json::Object>& out) {
  std::map<std::string, Series> by_table;
  for (const ResultRow& r : report.rows) {
    const auto user = metric(r, "output_tokens_per_s_per_user");
    auto total = metric(r, "output_tokens_per_s_per_gpu");
    if (!user || !total) {
      continue;
    }
    const std::string name = (r.table.empty() ? r.workload : r.table) + " " + r.config_text("precision");
    by_table[name].label = name;
    by_table[name].points.push_back(json::Array{*user, *total});
  }
  if (by_table.empty()) {
    return;
  }
  std::vector<Series> series;
  for (auto& [k, s] : by_table) {
    std::sort(s.points.begin(), s.points.end(),
              [](const json::Value& a, const json::Value& b) { return a[0].as_number() < b[0].as_number(); });
    series.push_back(s);
  }
  out.push_back(xy_chart("Throughput against per-user speed", axis("output tokens/s per user"),
                         axis("output tokens/s per GPU"), series,
                         "Each point one operating point (concurrency or batch), measured or projected as its row "
                         "says: the further up and right, the better."));
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

void generic_charts(const Report& report, std::vector<json::Object>& out) {
  for (const Table& t : tabulate(report.rows, false)) {
    const Rows rows =
        rows_where(report, [&](const ResultRow& r) { return (r.table.empty() ? r.workload : r.table) == t.title; });
    const Metric* first = nullptr;
    for (const Metric& m : rows.front()->metrics) {
      if (!m.hidden && better_direction(m.name, m.unit) != Better::none) {
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
    out.push_back(bar_chart(t.title + ": " + first->name, "row", axis(first->name + " [" + first->unit + "]"), names,
                            first->name, values,
                            std::string(to_string(better_direction(first->name, first->unit))) + "."));
  }
}

}  // namespace

std::vector<json::Object> charts_for(const Report& report) {
  std::vector<json::Object> out;
  explore_charts(report, out);
  comm_charts(report, out);
  layer_charts(report, out);
  inference_charts(report, out);
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
