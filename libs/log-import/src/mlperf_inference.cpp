// MLPerf Inference's loadgen logs (mlcommons/inference, loadgen/results.cc): mlperf_log_summary.txt,
//   ================================================
//   MLPerf Results Summary
//   ================================================
//   SUT name : Server-SUT
//   Scenario : Server
//   Mode     : PerformanceOnly
//   Completed samples per second    : 100.35
//   Completed tokens per second: 29228.22
//   Result is : VALID
//   ... Additional Stats (latency percentiles in ns, first-token and time-per-output-token ones for LLMs) ...
// and mlperf_log_detail.txt, the same results as MLLOG events in loadgen's namespace ("mlperf::logging"):
// result_validity, result_completed_tokens_per_second, result_90.00_percentile_latency_ns, ... A serving run: the
// scenario's result metric as loadgen states it (Offline: samples and tokens per second; Server: completed samples
// and tokens per second, scheduled samples per second before loadgen 4.1; SingleStream: the 90th percentile
// latency), the query latency, TTFT and TPOT percentiles; the scenario, mode, validity and SUT name as printed. An
// INVALID result is read and says so in its note.
#include <algorithm>
#include <map>

#include "dgx/log_import/log_text.hpp"
#include "mllog_event.hpp"
#include "parsed_run.hpp"

namespace dgx::logs {

namespace {

constexpr std::string_view kSummaryTitle = "MLPerf Results Summary";

// Latencies in ns by percentile ("50.00", "90.00", "99.00"): the query latency, TTFT and TPOT.
using Percentiles = std::map<std::string, double>;

struct LoadgenLog {
  ParsedRun run;
  std::map<std::string, Percentiles> latencies;  // "latency", "ttft", "tpot"
  std::vector<std::string> unmet;                // the validity checks loadgen says failed
};

bool has_loadgen_rate(const ParsedRun& run, std::string_view name) {
  return std::any_of(run.metrics.begin(), run.metrics.end(), [&](const Metric& m) { return m.name == name; });
}

// The first value of a metric wins: a summary restates its result among the additional stats.
void add_loadgen_rate(ParsedRun& run, const std::string& name, double value) {
  if (!has_loadgen_rate(run, name)) {
    run.metrics.push_back(metric(name, value, name.find("tokens") != std::string::npos ? "tokens/s" : "samples/s"));
  }
}

void add_percentile(LoadgenLog& r, const std::string& name, const std::string& percentile, double ns) {
  r.latencies[name].emplace(percentile, ns);
}

// Config the log prints that no workload key holds: what the run was (scenario, mode, validity, SUT).
void set_printed(ParsedRun& run, const std::string& key, const std::string& value, int line) {
  if (!value.empty()) {
    run.set("mlperf." + key, value, line);
  }
}

void finish_loadgen_log(LoadgenLog& r) {
  ParsedRun& run = r.run;
  auto ms = [](const Percentiles& p, const char* at) {
    const auto it = p.find(at);
    return it == p.end() ? std::nullopt : std::optional<double>(it->second * 1e-6);
  };
  for (const auto& [name, p] : r.latencies) {
    run.add_latency(name, ms(p, "50.00"), ms(p, "90.00"), ms(p, "99.00"));
  }
  const json::Value* scenario = run.config.find("mlperf.scenario");
  run.timing = "MLPerf LoadGen" + (scenario != nullptr ? ", " + scenario->as_string() + " scenario" : std::string()) +
               ": the rates and latencies loadgen computed over the run";
  const json::Value* result = run.config.find("mlperf.result");
  if (result != nullptr && result->as_string() != "VALID") {
    std::string why;
    for (const std::string& u : r.unmet) {
      why += (why.empty() ? " (" : ", ") + u;
    }
    run.notes.push_back("loadgen judged the result " + result->as_string() + (why.empty() ? "" : why + ")") +
                        ": not a result MLPerf accepts");
  }
}

Expected<ParsedRun> loadgen_result(LoadgenLog& r, const std::string& origin) {
  finish_loadgen_log(r);
  if (r.run.metrics.empty()) {
    return bad_input(origin, 0,
                     "no result: the loadgen log states no samples or tokens per second nor any latency (an "
                     "AccuracyOnly run measures none)");
  }
  return std::move(r.run);
}

ParsedRun loadgen_run() {
  ParsedRun run;
  run.tool = "mlperf-inference";
  run.kind = RunKind::serving;
  run.workload = "llm-inference";
  return run;
}

// --- mlperf_log_summary.txt ---

bool is_summary_rule(std::string_view line) {
  line = trim(line);
  return line.size() >= 10 && line.find_first_not_of('=') == std::string_view::npos;
}

// "50.00 percentile first token latency (ns)" -> ("ttft", "50.00"); "90th percentile latency (ns)" -> ("latency",
// "90.00"); nothing for min/max/mean.
std::optional<std::pair<std::string, std::string>> percentile_label(std::string_view label) {
  const std::size_t space = label.find(' ');
  if (space == std::string_view::npos || !label.substr(space).starts_with(" percentile ")) {
    return std::nullopt;
  }
  std::string at(label.substr(0, space));
  if (at.ends_with("th")) {
    at = at.substr(0, at.size() - 2) + ".00";
  }
  const std::string_view what = label.substr(space + std::string_view(" percentile ").size());
  if (what == "latency (ns)") {
    return std::make_pair(std::string("latency"), at);
  }
  if (what == "first token latency (ns)") {
    return std::make_pair(std::string("ttft"), at);
  }
  if (what == "time to output token (ns)") {
    return std::make_pair(std::string("tpot"), at);
  }
  return std::nullopt;
}

// A rate line: in the results section it is the scenario's result (samples_per_s, output_tokens_per_s); among the
// additional stats, a samples rate keeps its qualifier (scheduled_samples_per_s).
bool read_rate(LoadgenLog& r, std::string_view label, double value, bool result_section) {
  if (label == "Samples per second" ||
      ((label == "Completed samples per second" || label == "Scheduled samples per second") && result_section)) {
    add_loadgen_rate(r.run, "samples_per_s", value);
  } else if (label == "Completed samples per second" || label == "Scheduled samples per second") {
    add_loadgen_rate(r.run, label.starts_with("Completed") ? "completed_samples_per_s" : "scheduled_samples_per_s",
                     value);
  } else if (label == "Tokens per second" || label == "Completed tokens per second") {
    add_loadgen_rate(r.run, "output_tokens_per_s", value);
  } else if (label.starts_with("Completed tokens per second (inferred)")) {
    r.run.notes.emplace_back("tokens per second not measured: loadgen inferred them from samples per second");
  } else {
    return false;
  }
  return true;
}

void read_summary_line(LoadgenLog& r, const Line& line, bool result_section) {
  const std::size_t colon = line.text.find(':');
  if (colon == std::string_view::npos) {
    return;
  }
  const std::string_view label = trim(line.text.substr(0, colon));
  const std::string value(trim(line.text.substr(colon + 1)));
  if (label == "SUT name" || label == "Scenario" || label == "Mode" || label == "Result is") {
    const char* key = label == "SUT name"   ? "sut"
                      : label == "Scenario" ? "scenario"
                      : label == "Mode"     ? "mode"
                                            : "result";
    set_printed(r.run, key, value, line.number);
    return;
  }
  if (result_section && label.ends_with("satisfied") && (value == "NO" || value == "No")) {
    r.unmet.emplace_back(std::string(label) + ": " + value);
    return;
  }
  const auto number = parse_number(value);
  if (!number || read_rate(r, label, *number, result_section)) {
    return;
  }
  if (const auto p = percentile_label(label)) {
    add_percentile(r, p->first, p->second, *number);
  }
}

// Sections open with a title between two rules of '=': "MLPerf Results Summary", "Additional Stats", "Test
// Parameters Used".
Expected<ParsedRun> parse_summary(std::string_view text, const std::string& origin) {
  LoadgenLog r;
  r.run = loadgen_run();
  enum class At { content, title, title_end } at = At::content;
  std::string section;
  for (const Line& line : split_lines(text)) {
    if (is_summary_rule(line.text)) {
      at = at == At::title_end ? At::content : At::title;
      continue;
    }
    if (at == At::title) {
      section = std::string(trim(line.text));
      at = At::title_end;
      r.run.first_line = r.run.first_line == 0 ? line.number : r.run.first_line;
    } else if (!section.empty()) {
      read_summary_line(r, line, section == kSummaryTitle);
      r.run.last_line = line.number;
    }
  }
  return loadgen_result(r, origin);
}

// --- mlperf_log_detail.txt ---

// "result_first_token_90.00_percentile_latency_ns" -> ("ttft", "90.00"), and so on.
std::optional<std::pair<std::string, std::string>> percentile_key(std::string_view key) {
  static const std::pair<std::string_view, const char*> kinds[] = {
      {"result_first_token_", "ttft"}, {"result_time_per_output_token_", "tpot"}, {"result_", "latency"}};
  for (const auto& [prefix, name] : kinds) {
    if (!key.starts_with(prefix)) {
      continue;
    }
    const std::string_view rest = key.substr(prefix.size());
    const std::size_t end = rest.find("_percentile_");
    if (end == std::string_view::npos ||
        (rest.substr(end) != "_percentile_latency_ns" && rest.substr(end) != "_percentile_ns")) {
      return std::nullopt;
    }
    return std::make_pair(std::string(name), std::string(rest.substr(0, end)));
  }
  return std::nullopt;
}

// Loadgen before 4.1 stated a Server run's result as the scheduled rate, from 4.1 as the completed one (the MLPerf
// submission checker's RESULT_FIELD_NEW).
bool scheduled_is_result(const ParsedRun& run) {
  const auto version = parse_number(run.version.substr(0, run.version.find(' ')));
  return version && *version < 4.1;
}

void read_detail_rate(LoadgenLog& r, const std::string& key, double value) {
  if (key == "result_samples_per_second") {
    add_loadgen_rate(r.run, "samples_per_s", value);
  } else if (key == "result_tokens_per_second" || key == "result_completed_tokens_per_second") {
    add_loadgen_rate(r.run, "output_tokens_per_s",
                     value);  // not result_token_throughput: loadgen 4.1 logs a wrong number
  } else if (key == "result_completed_samples_per_sec") {
    add_loadgen_rate(r.run, scheduled_is_result(r.run) ? "completed_samples_per_s" : "samples_per_s", value);
  } else if (key == "result_scheduled_samples_per_sec") {
    add_loadgen_rate(r.run, scheduled_is_result(r.run) ? "samples_per_s" : "scheduled_samples_per_s", value);
  } else if (const auto p = percentile_key(key)) {
    add_percentile(r, p->first, p->second, value);
  }
}

void read_detail_event(LoadgenLog& r, const MllogEvent& e, int line) {
  static const std::map<std::string, const char*> printed = {{"sut_name", "sut"},
                                                             {"effective_scenario", "scenario"},
                                                             {"effective_test_mode", "mode"},
                                                             {"result_validity", "result"}};
  if (e.key == "loadgen_version" && e.value.is_string()) {
    r.run.version = e.value.as_string();
  } else if (const auto it = printed.find(e.key); it != printed.end() && e.value.is_string()) {
    set_printed(r.run, it->second, e.value.as_string(), line);
  } else if (e.key == "result_invalid_reason" && e.value.is_string()) {
    r.unmet.emplace_back(std::string(trim(e.value.as_string())));
  } else if (e.key.ends_with("_met") && e.key.starts_with("result_") && e.value.is_bool() && !e.value.as_bool()) {
    r.unmet.push_back(e.key + ": false");
  } else if (e.value.is_number()) {
    read_detail_rate(r, e.key, e.value.as_number());
  }
}

Expected<ParsedRun> parse_detail(LineSource& lines, const std::string& origin) {
  LoadgenLog r;
  r.run = loadgen_run();
  const auto stopped = for_each_line(lines, [&](const Line& line) -> std::optional<Failure> {
    if (!has_mllog_event(line.text)) {
      return std::nullopt;
    }
    auto event = read_mllog_event(line, !line.line_break, origin);  // a last line cut off
    if (!event) {
      return event.error();
    }
    read_detail_event(r, *event, line.number);
    r.run.first_line = r.run.first_line == 0 ? line.number : r.run.first_line;
    r.run.last_line = line.number;
    return std::nullopt;
  });
  if (stopped) {
    return *stopped;
  }
  return loadgen_result(r, origin);
}

bool is_summary(std::string_view text) {
  for (const Line& line : split_lines(text)) {
    if (trim(line.text) == kSummaryTitle) {
      return true;
    }
  }
  return false;
}

}  // namespace

bool looks_like_mlperf_inference(std::string_view text) {
  const bool detail =
      text.find(kMllogPrefix) != std::string_view::npos && text.find(kLoadgenNamespace) != std::string_view::npos;
  return detail || (text.find(kSummaryTitle) != std::string_view::npos && is_summary(text));
}

Expected<ParsedRun> parse_mlperf_inference(LineSource& lines, const std::string& origin) {
  const std::string_view head = lines.head();
  if (head.find(kMllogPrefix) != std::string_view::npos && head.find(kLoadgenNamespace) != std::string_view::npos) {
    return parse_detail(lines, origin);  // the detail log grows with the run: streamed
  }
  return parse_summary(lines.whole(), origin);  // the summary is a page
}

}  // namespace dgx::logs
