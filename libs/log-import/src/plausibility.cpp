// What no tool measures: a negative, zero, NaN or infinite time or rate, a step shorter than a microsecond, a bus
// bandwidth beyond 1.5 x the fabric's peak. A parser reads numbers as printed; these checks refuse a value that
// cannot be a measurement (a corrupted log, a unit mix-up), naming the line where the parser recorded one.
#include <cmath>

#include "dgx/catalog/system_catalog.hpp"
#include "parsed_run.hpp"

namespace dgx::logs {

namespace {

constexpr double kShortestStep = 1e-6;  // s: no training step, not even a toy model's, is shorter
constexpr double kFabricMargin = 1.5;   // busbw may exceed the link peak (NVLS, SHARP) but not by this much

std::string shown(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

int line_at(const std::vector<int>& lines, std::size_t i) { return i < lines.size() ? lines[i] : 0; }

std::optional<Failure> check_series(const ParsedRun& run, const std::string& origin) {
  const char* what = run.series_kind == SeriesKind::step_time_s     ? "step time"
                     : run.series_kind == SeriesKind::samples_per_s ? "throughput"
                                                                    : "tokens per second";
  for (std::size_t i = 0; i < run.series.size(); ++i) {
    const double v = run.series[i];
    if (!std::isfinite(v) || v <= 0) {
      return bad_input(origin, line_at(run.series_lines, i),
                       std::string("a ") + what + " of " + shown(v) +
                           ": no measurement is zero, negative or not a "
                           "number");
    }
    if (run.series_kind == SeriesKind::step_time_s && v < kShortestStep) {
      return bad_input(origin, line_at(run.series_lines, i),
                       "a step time of " + shown(v) +
                           " s: shorter than a microsecond, no training step is (a unit "
                           "mix-up?)");
    }
  }
  return std::nullopt;
}

std::optional<Failure> check_lines(const ParsedRun& run, const std::string& origin) {
  for (const CollectiveLine& l : run.lines) {
    for (const auto& [name, v] : {std::pair<const char*, double>{"time", l.time_us},
                                  {"algbw", l.algbw},
                                  {"busbw", l.busbw},
                                  {"size", l.size_bytes}}) {
      if (!std::isfinite(v) || v < 0) {
        return bad_input(origin, l.line,
                         std::string("a ") + name + " of " + shown(v) + ": no measurement is negative or not a number");
      }
    }
  }
  return std::nullopt;
}

std::optional<Failure> check_metrics(const ParsedRun& run, const std::string& origin) {
  for (const Metric& m : run.metrics) {
    if (!std::isfinite(m.value) || m.value < 0) {
      return bad_input(origin, 0,
                       m.name + " " + shown(m.value) + " " + m.unit + ": no measurement is negative or not a number");
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<Failure> check_plausible(const ParsedRun& run, const std::string& origin) {
  if (auto problem = check_series(run, origin)) {
    return problem;
  }
  if (auto problem = check_lines(run, origin)) {
    return problem;
  }
  if (auto problem = check_metrics(run, origin)) {
    return problem;
  }
  for (const ParsedRun& other : run.more_runs) {
    if (auto problem = check_plausible(other, origin)) {
      return problem;
    }
  }
  return std::nullopt;
}

std::optional<Failure> check_fabric(const ParsedRun& run, const std::string& origin) {
  const json::Value* system = run.config.find("system");
  if (run.kind != RunKind::collective || system == nullptr || !system->is_string()) {
    return std::nullopt;
  }
  const auto profile = catalog::find_system(system->as_string());
  if (!profile || profile->nvlink_gb_s <= 0) {
    return std::nullopt;
  }
  const double ceiling = kFabricMargin * std::max(profile->nvlink_gb_s, profile->nic_gb_s);
  for (const CollectiveLine& l : run.lines) {
    if (l.busbw > ceiling) {
      return bad_input(origin, l.line,
                       "a bus bandwidth of " + shown(l.busbw) + " GB/s: more than 1.5 x the " + system->as_string() +
                           " fabric's peak (" + shown(profile->nvlink_gb_s) +
                           " GB/s per GPU over NVLink); a corrupted log, or the wrong --set system?");
    }
  }
  return std::nullopt;
}

}  // namespace dgx::logs
