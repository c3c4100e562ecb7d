// What a file says by itself (the SDK's LogReading, dgxhost import --inspect): the headline values a careful reader
// computes, before --set completes the configuration. The same parsers and warm-up rule as the rows, so that what
// `import --inspect` shows is what `import` records.
#include <algorithm>

#include "parsed_run.hpp"
#include "steady_state.hpp"

namespace dgx::logs {

namespace {

using LogReading = sdk::LogReading;

LogReading::Value value_of(const Metric& m) { return {m.name, m.value, m.unit}; }

const char* kind_name(RunKind kind) {
  switch (kind) {
  case RunKind::training: return "training";
  case RunKind::collective: return "collective";
  case RunKind::serving: return "serving";
  }
  return "";
}

LogReading::Value series_value(SeriesKind kind, double value) {
  switch (kind) {
  case SeriesKind::step_time_s: return {"step_time", value, "s"};
  case SeriesKind::samples_per_s: return {"samples_per_s", value, "samples/s"};
  case SeriesKind::tokens_per_s_per_gpu: return {"tokens_per_s_per_gpu", value, "tokens/s"};
  }
  return {};
}

// The collective's headline: the largest message of the table, out-of-place unless only in-place was printed.
std::optional<Failure> read_collective(const ParsedRun& run, LogReading& reading, const std::string& origin) {
  const CollectiveLine* best = nullptr;
  for (const CollectiveLine& l : run.lines) {
    const bool better =
        best == nullptr || l.size_bytes > best->size_bytes ||
        (l.size_bytes == best->size_bytes && l.placement == "out-of-place" && best->placement != "out-of-place");
    if (better) {
      best = &l;
    }
  }
  if (best == nullptr) {
    return bad_input(origin, 0, "no table row: the file prints no message size with its time");
  }
  reading.values.push_back({"busbw", best->busbw, "GB/s"});
  reading.values.push_back({"algbw", best->algbw, "GB/s"});
  reading.values.push_back({"size", best->size_bytes, "B"});
  reading.values.push_back({"time", best->time_us * 1e-6, "s"});
  reading.notes.push_back("the largest message (" + std::to_string(static_cast<long long>(best->size_bytes)) + " B), " +
                          best->placement);
  return std::nullopt;
}

std::optional<Failure> read_series(const ParsedRun& run, LogReading& reading, const std::string& origin) {
  if (run.series.empty()) {
    return std::nullopt;  // a training file that only states summary values (MLPerf's time to train)
  }
  WarmupRule rule = run.warmup_rule();
  rule.min_steps = 1;
  auto steady = steady_state(run.series, origin, rule);
  if (!steady) {
    return steady.error();
  }
  reading.values.push_back(series_value(run.series_kind, steady->median));
  reading.steady_state = steady->describe();
  if (steady->steady.size() < kMinSteadySteps && !steady->user_warmup) {
    reading.notes.push_back("only " + std::to_string(steady->steady.size()) +
                            " step(s) after warm-up: no steady state that import records without --set "
                            "import.warmup=N");
  }
  return std::nullopt;
}

}  // namespace

Expected<LogReading> inspect_run(ParsedRun run_value, const std::vector<SetEntry>& sets, const std::string& origin) {
  ParsedRun* run = &run_value;
  std::vector<SetEntry> ignored;
  if (auto problem = apply_import_options(*run, sets, ignored, origin)) {
    return *problem;
  }
  if (auto problem = select_run(*run, origin, true)) {
    return *problem;
  }
  LogReading reading;
  reading.tool = run->tool;
  reading.version = run->version;
  reading.kind = kind_name(run->kind);
  reading.workload = run->workload;
  reading.timing = run->timing;
  reading.lines = std::to_string(run->first_line) + "-" + std::to_string(run->last_line);
  if (run->kind == RunKind::collective) {
    if (auto problem = read_collective(*run, reading, origin)) {
      return *problem;
    }
  } else if (auto problem = read_series(*run, reading, origin)) {
    return *problem;
  }
  for (const Metric& m : run->metrics) {
    reading.values.push_back(value_of(m));
  }
  if (reading.values.empty()) {
    return bad_input(origin, 0, "no timing: the " + run->tool + " file prints no step, rate or latency to import");
  }
  for (const auto& [key, value] : run->config) {
    const auto line = run->line_of.find(key);
    const std::string shown = value.is_string() ? value.as_string() : json::write(value, 0);
    reading.printed.emplace_back(
        key,
        shown + (line != run->line_of.end() && line->second > 0 ? " (line " + std::to_string(line->second) + ")" : ""));
  }
  for (const auto& [key, value] : run->inferred) {
    const std::string shown = value.is_string() ? value.as_string() : json::write(value, 0);
    reading.printed.emplace_back(key, shown + " (inferred from a line the file lacks; --set overrules it)");
  }
  if (!run->printed_model.empty()) {
    reading.printed.emplace_back("model as printed", run->printed_model);
  }
  if (!run->printed_device.empty()) {
    reading.printed.emplace_back("GPU as printed", run->printed_device);
  }
  reading.notes.insert(reading.notes.end(), run->notes.begin(), run->notes.end());
  return reading;
}

}  // namespace dgx::logs
