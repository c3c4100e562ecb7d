// dgxhost history's report (history.hpp). A series' verdict comes from its finite points only: a run whose value
// was not finite is shown but cannot move a change point.
#include "dgx/core/store/history.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "dgx/core/support/quantity.hpp"
#include "dgx/core/support/statistics.hpp"
#include "dgx/core/support/text.hpp"
#include "dgx/core/support/utc_time.hpp"

namespace dgx {

namespace {

ResultMode mode_of(const SeriesKey& key) {
  if (key.mode == "projected") {
    return ResultMode::projected;
  }
  return key.mode == "reference" ? ResultMode::reference : ResultMode::measured;
}

std::string series_label(const SeriesKey& key) { return key.label.empty() ? key.workload : key.label; }

// What identifies the series in a row: the metric, the system and hosts, then the row's own configuration.
json::Object series_config(const SeriesKey& key) {
  json::Object config;
  config.set("metric", key.metric);
  if (!key.system.empty()) {
    config.set("system", key.system);
  }
  if (key.gpus > 0) {
    config.set("gpus", key.gpus);
  }
  if (!key.gpu_model.empty()) {
    config.set("gpu_model", key.gpu_model);
  }
  if (!key.hosts.empty()) {
    config.set("hosts", key.hosts);
  }
  try {
    const json::Value own = json::parse(key.config);
    if (own.is_object()) {
      for (const auto& member : own.as_object()) {
        config.set(member.first, member.second);
      }
    }
  } catch (const std::exception&) {  // the store wrote it; a hand-edited store keeps the columns above
  }
  return config;
}

// The context fields a point may change along a series, with their names in messages.
std::vector<std::pair<const char*, std::string RunContext::*>> context_fields() {
  return {{"driver", &RunContext::driver},
          {"cuda", &RunContext::cuda},
          {"nccl", &RunContext::nccl},
          {"framework", &RunContext::framework},
          {"dgxhost", &RunContext::dgxhost_revision},
          {"plugin_version", &RunContext::plugin_version},
          {"hosts", &RunContext::hosts},
          {"gpu_model", &RunContext::gpu_model}};
}

// "nccl 2.21.5 -> 2.23.4; hosts node3 -> node7", or "" when the two runs ran alike.
std::string what_changed(const RunContext& before, const RunContext& after) {
  std::vector<std::string> changes;
  for (const auto& [name, member] : context_fields()) {
    const std::string& a = before.*member;
    const std::string& b = after.*member;
    if (a != b) {
      changes.push_back(std::string(name) + " " + (a.empty() ? "(none)" : a) + " -> " + (b.empty() ? "(none)" : b));
    }
  }
  return text::join(changes, "; ");
}

struct Finite {
  std::vector<double> values;
  std::vector<std::size_t> index;  // of each value in the series' points
};

Finite finite_values(const Series& s) {
  Finite f;
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    if (std::isfinite(s.points[i].value)) {
      f.values.push_back(s.points[i].value);
      f.index.push_back(i);
    }
  }
  return f;
}

struct Judgement {
  std::string verdict;    // regression, improvement, shift, no change, no new change, not enough history, ...
  std::string change;     // the change point or window result in words
  std::string changed;    // context fields that changed at that point
  std::string why;        // how the verdict was reached
  double relative = NAN;  // after / before - 1
  double p_value = NAN;
  std::set<std::size_t> change_points;  // indices into the points
};

std::string direction_verdict(Better better, double before, double after) {
  if (better == Better::none) {
    return "shift";
  }
  const auto goodness = goodness_ratio(better, after, before);
  return goodness && *goodness < 1 ? "regression" : "improvement";
}

std::string change_text(const Series& s, std::size_t at, double before, double after, double p) {
  return iso_utc(s.points[at].run.time) + ": " + format_quantity(before, s.key.unit) + " -> " +
         format_quantity(after, s.key.unit) + " (" + (after >= before ? "+" : "") +
         text::format_number(100 * (after / before - 1), 3) + "%), p = " + text::format_number(p, 2);
}

Judgement judge_edivisive(const Series& s, const Finite& f, const DetectOptions& o) {
  Judgement j;
  if (!enough_history(f.values.size(), o.change_points)) {
    j.verdict = "not enough history";
    j.why = std::to_string(f.values.size()) + " point(s); e-divisive needs at least " +
            std::to_string(min_history(o.change_points).value_or(0));
    return j;
  }
  const std::vector<ChangePoint> found = e_divisive_means(f.values, o.change_points);
  for (const ChangePoint& cp : found) {
    j.change_points.insert(f.index[cp.index]);
  }
  j.why = "e-divisive with means, " + std::to_string(o.change_points.permutations) + " permutations (seed " +
          std::to_string(o.change_points.seed) + "), alpha " + text::format_number(o.change_points.alpha, 3) + ", " +
          std::to_string(found.size()) + " change point(s) in " + std::to_string(f.values.size()) + " points";
  if (found.empty()) {
    j.verdict = "no change";
    return j;
  }
  const ChangePoint& last = found.back();
  const std::size_t at = f.index[last.index];
  j.relative = last.relative;
  j.p_value = last.p_value;
  j.change = change_text(s, at, last.mean_before, last.mean_after, last.p_value);
  j.changed = what_changed(s.points[f.index[last.index - 1]].run, s.points[at].run);
  if (std::abs(last.relative) <= o.window.threshold) {
    j.verdict = "no significant change";
    j.why += "; the newest change is within the threshold of " + text::format_number(100 * o.window.threshold, 3) + "%";
    return j;
  }
  if (last.index + o.recent < f.values.size()) {
    j.verdict = "no new change";
    j.why += "; the newest change point is older than the newest " + std::to_string(o.recent) + " points";
    return j;
  }
  j.verdict = direction_verdict(series_better(s.key), last.mean_before, last.mean_after);
  j.why = j.change + (j.changed.empty() ? "" : "; changed: " + j.changed) + "; " + j.why;  // a CI failure's message
  return j;
}

Judgement judge_window(const Series& s, const Finite& f, const DetectOptions& o) {
  Judgement j;
  const auto w = window_change(f.values, o.window);
  if (!w) {
    j.verdict = "not enough history";
    j.why = std::to_string(f.values.size()) + " point(s); the window test needs at least " +
            std::to_string(min_history(o.window).value_or(0));
    return j;
  }
  const std::size_t first_recent = f.values.size() - o.window.recent;
  j.relative = w->relative;
  j.p_value = w->p_value;
  j.change = "newest " + std::to_string(o.window.recent) + " points against the " +
             std::to_string(std::min(o.window.window, first_recent)) + " before them: median " +
             format_quantity(w->median_before, s.key.unit) + " -> " + format_quantity(w->median_recent, s.key.unit) +
             " (" + (w->relative >= 0 ? "+" : "") + text::format_number(100 * w->relative, 3) +
             "%), Mann-Whitney p = " + text::format_number(w->p_value, 2);
  j.changed = what_changed(s.points[f.index[first_recent - 1]].run, s.points[f.index[first_recent]].run);
  j.why = "threshold " + text::format_number(100 * o.window.threshold, 3) + "%, alpha " +
          text::format_number(o.window.alpha, 3);
  if (!w->significant) {
    j.verdict = "no significant change";
    return j;
  }
  j.change_points.insert(f.index[first_recent]);
  j.verdict = direction_verdict(series_better(s.key), w->median_before, w->median_recent);
  j.why = j.change + (j.changed.empty() ? "" : "; changed: " + j.changed) + "; " + j.why;
  return j;
}

Field field(std::string key, std::string value, bool hidden = false) {
  return {std::move(key), std::move(value), hidden};
}

ResultRow summary_row(const Series& s, const std::string& name, const Finite& f, const Judgement* j) {
  ResultRow row;
  row.workload = s.key.workload;
  row.plugin = s.key.plugin;
  row.mode = mode_of(s.key);
  row.table = "history " + s.key.metric;
  row.label = name;
  row.config = series_config(s.key);
  if (s.key.mode == "imported") {
    row.add_field(field("source", "imported", true));
  }
  row.add_field(field("since", s.points.empty() ? "" : iso_utc(s.points.front().run.time)));
  row.add_field(field("latest", s.points.empty() ? "" : iso_utc(s.points.back().run.time)));
  row.add_metric({"points", static_cast<double>(s.points.size()), "count", false, ""});
  if (!f.values.empty()) {
    row.add_metric({"value.latest", f.values.back(), s.key.unit, false, "latest"});
    row.add_metric({"value.median", compute_stats(f.values).median, s.key.unit, false, "median"});
  }
  if (j != nullptr) {
    row.add_field(field("verdict", j->verdict));
    row.add_field(field("change", j->change));
    row.add_field(field("changed", j->changed));
    row.add_field(field("why", j->why, true));
    if (std::isfinite(j->relative)) {
      row.add_metric({"change", 100 * j->relative, "%", false, ""});
    }
    if (std::isfinite(j->p_value)) {
      row.add_metric({"p_value", j->p_value, "1", false, "p"});
    }
  }
  return row;
}

void add_point_rows(const Series& s, const std::string& name, const Judgement* j, std::vector<ResultRow>& rows) {
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const SeriesPoint& p = s.points[i];
    ResultRow row;
    row.workload = s.key.workload;
    row.plugin = s.key.plugin;
    row.mode = mode_of(s.key);
    row.table = "history points " + s.key.metric;
    row.label = series_label(s.key);
    row.config = series_config(s.key);
    row.config.set("time", iso_utc(p.run.time));
    row.config.set("run", p.run_id);
    row.add_field(field("epoch", std::to_string(p.run.time), true));  // the chart's time axis
    row.add_field(field("series", name, true));                       // the chart's line
    row.add_metric({s.key.metric, p.value, s.key.unit, false, ""});
    for (const auto& [context_name, member] : context_fields()) {
      if (!(p.run.*member).empty()) {
        row.add_field(field(context_name, p.run.*member));
      }
    }
    if (!p.timing.empty()) {
      row.add_field(field("timing", p.timing, true));
    }
    if (!p.verdict.empty()) {
      row.add_field(field("run_verdict", p.verdict, true));
    }
    row.add_field(field("source", s.key.mode == "imported" ? "imported: " + p.run.source : p.run.source, true));
    if (j != nullptr && j->change_points.count(i) > 0) {
      row.add_field(field("change_point", "yes", true));
    }
    rows.push_back(std::move(row));
  }
}

std::string method_text(const DetectOptions& o) {
  if (o.method == DetectMethod::window) {
    return "the window test (the newest " + std::to_string(o.window.recent) + " points against up to " +
           std::to_string(o.window.window) + " before them, Mann-Whitney U, alpha " +
           text::format_number(o.window.alpha, 3) + ", threshold " + text::format_number(100 * o.window.threshold, 3) +
           "%)";
  }
  return "e-divisive with means (permutation test: " + std::to_string(o.change_points.permutations) +
         " permutations, seed " + std::to_string(o.change_points.seed) + ", alpha " +
         text::format_number(o.change_points.alpha, 3) + "; at least " + std::to_string(o.change_points.min_segment) +
         " points on each side of a change; a change is new within the newest " + std::to_string(o.recent) +
         " points and counts beyond " + text::format_number(100 * o.window.threshold, 3) + "%)";
}

// A name for the series, unique among those of its metric (`seen` counts the names given): its label, its hosts,
// then what else tells it apart.
std::string series_name(const SeriesKey& key, std::map<std::string, int>& seen) {
  std::string name = series_label(key);
  if (!key.hosts.empty()) {
    name += " on " + key.hosts;
  }
  if (!key.system.empty()) {
    name += " (" + key.system + (key.gpus > 0 ? ", " + std::to_string(key.gpus) + " GPUs" : "") + ")";
  }
  if (const int n = ++seen[key.metric + "\x1f" + name]; n > 1) {
    name += " #" + std::to_string(n);
  }
  return name;
}

}  // namespace

void HistoryReportBuilder::add(const Series& s) {
  const std::string name = series_name(s.key, names_);
  const Finite f = finite_values(s);
  std::optional<Judgement> j;
  if (options_.detect.method == DetectMethod::edivisive) {
    j = judge_edivisive(s, f, options_.detect);
  } else if (options_.detect.method == DetectMethod::window) {
    j = judge_window(s, f, options_.detect);
  }
  report_.rows.push_back(summary_row(s, name, f, j ? &*j : nullptr));
  if (options_.point_rows) {
    add_point_rows(s, name, j ? &*j : nullptr, report_.rows);
  }
  ++series_;
  points_ += s.points.size();
  longest_ = std::max(longest_, s.points.size());
  if (j) {
    ++verdicts_[j->verdict];
    if (j->verdict == "regression") {
      regressed_.push_back(series_label(s.key) + " " + s.key.metric +
                           (s.key.hosts.empty() ? "" : " on " + s.key.hosts) + ": " + j->change +
                           (j->changed.empty() ? "" : "; changed: " + j->changed));
    }
  }
}

Report history_report(const std::vector<Series>& series, const HistoryOptions& options) {
  HistoryReportBuilder builder(options);
  for (const Series& s : series) {
    builder.add(s);
  }
  return builder.finish();
}

Report HistoryReportBuilder::finish() {
  Report report = std::move(report_);
  report_ = Report{};
  std::string text = std::to_string(series_) + " series, " + std::to_string(points_) + " points.";
  if (series_ == 0) {
    text = "No series matches: the store holds no run with these filters (dgxhost store add RESULTS.json records "
           "one; --store names another store).";
  }
  if (options_.detect.method != DetectMethod::none) {
    std::vector<std::string> counts;
    for (const auto& [verdict, n] : verdicts_) {
      counts.push_back(std::to_string(n) + " " + verdict);
    }
    text += " Detection: " + method_text(options_.detect) +
            ". Verdicts: " + (counts.empty() ? std::string("none") : text::join(counts, ", ")) +
            ". \"not enough history\" is not a pass: the series is too short to judge.";
  }
  report.notes.push_back({false, "History", text});
  if (!regressed_.empty()) {
    report.notes.push_back({false, "Regressions", text::join(regressed_, "\n")});
    report.exit_code = to_int(ExitCode::check_failed);
    report.error = std::to_string(regressed_.size()) + " series regressed in their newest points";
  }
  return report;
}

}  // namespace dgx
