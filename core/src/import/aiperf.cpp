// AIPerf's summary exports (ai-dynamo/aiperf): profile_export_aiperf.json, one object per metric
//   "time_to_first_token": {"unit": "ms", "avg": 120.5, "p50": 118.2, "p90": 140.1, "p99": 171.0, ...}
// with the run's input_config (model names, concurrency, request rate, ISL/OSL), was_cancelled, start/end times;
// and profile_export_aiperf.csv, the same statistics one metric a row ("Time to First Token (ms),120.5,...").
// A run that did not finish (no end_time or request_count, was_cancelled, failed requests) is refused: its
// statistics are of a different load than the one configured.
#include <map>

#include "log_text.hpp"
#include "parsed_run.hpp"

namespace dgx::detail {

namespace {

// AIPerf's metric tags and their names in the rows.
struct MetricName {
  const char* tag;
  const char* header;  // the CSV's row title, before " ("
  const char* row;
  bool latency;  // milliseconds, with percentiles; else a rate
};

constexpr MetricName kMetrics[] = {
    {"time_to_first_token", "Time to First Token", "ttft", true},
    {"inter_token_latency", "Inter Token Latency", "tpot", true},
    {"request_latency", "Request Latency", "e2e_latency", true},
    {"output_token_throughput", "Output Token Throughput", "output_tokens_per_s", false},
    {"output_token_throughput_per_user", "Output Token Throughput Per User", "output_tokens_per_s_per_user", false},
    {"request_throughput", "Request Throughput", "requests_per_s", false},
};

// Statistics of one metric: "avg", "p50", ... -> value.
using StatFields = std::map<std::string, double>;

std::optional<double> stat(const StatFields& s, const char* name) {
  const auto it = s.find(name);
  return it == s.end() ? std::nullopt : std::optional<double>(it->second);
}

void add_metric(ParsedRun& run, const MetricName& m, const StatFields& s) {
  if (m.latency) {
    auto median = stat(s, "p50");
    run.add_latency(m.row, median ? median : stat(s, "avg"), stat(s, "p90"), stat(s, "p99"));
    return;
  }
  auto value = stat(s, "avg");
  if (!value) {
    value = stat(s, "value");
  }
  if (value) {
    run.metrics.push_back(metric(m.row, *value, m.row == std::string("requests_per_s") ? "requests/s" : "tokens/s"));
  }
}

StatFields stats_of(const json::Value& v) {
  StatFields s;
  if (v.is_object()) {
    for (const auto& member : v.as_object()) {
      if (member.second.is_number()) {
        s[member.first] = member.second.as_number();
      }
    }
  }
  return s;
}

const json::Value* at_path(const json::Value& v, std::initializer_list<const char*> path) {
  const json::Value* at = &v;
  for (const char* key : path) {
    if (!at->is_object() || (at = at->as_object().find(key)) == nullptr) {
      return nullptr;
    }
  }
  return at;
}

void read_input_config(const json::Value& doc, ParsedRun& run) {
  if (const json::Value* names = at_path(doc, {"input_config", "endpoint", "model_names"});
      names != nullptr && names->is_array() && !names->as_array().empty() && names->as_array()[0].is_string()) {
    run.printed_model = names->as_array()[0].as_string();
  }
  if (const json::Value* c = at_path(doc, {"input_config", "loadgen", "concurrency"}); c != nullptr && c->is_number()) {
    run.set("serve.concurrency", static_cast<std::int64_t>(c->as_number()), 0);
  }
  if (const json::Value* r = at_path(doc, {"input_config", "loadgen", "request_rate"});
      r != nullptr && r->is_number()) {
    run.notes.push_back("request rate " + json::write(*r, 0) + " requests/s");
  }
  const json::Value* isl = at_path(doc, {"input_config", "input", "prompt", "input_tokens", "mean"});
  const json::Value* osl = at_path(doc, {"input_config", "input", "prompt", "output_tokens", "mean"});
  if (isl != nullptr && isl->is_number()) {
    run.set("serve.isl", static_cast<std::int64_t>(isl->as_number()), 0);
  }
  if (osl != nullptr && osl->is_number()) {
    run.set("serve.osl", static_cast<std::int64_t>(osl->as_number()), 0);
  }
}

std::optional<Failure> check_finished(const json::Value& doc, const std::string& origin) {
  const json::Value* cancelled = at_path(doc, {"was_cancelled"});
  if (cancelled != nullptr && cancelled->is_bool() && cancelled->as_bool()) {
    return bad_input(origin, 0, "an unfinished AIPerf run: was_cancelled is true");
  }
  const json::Value* errors = at_path(doc, {"error_request_count", "avg"});
  if (errors != nullptr && errors->is_number() && errors->as_number() > 0) {
    return bad_input(origin, 0,
                     "an AIPerf run with failed requests (error_request_count " + json::write(*errors, 0) +
                         "): its statistics are not of the configured load");
  }
  for (const char* key : {"end_time", "request_count"}) {
    if (at_path(doc, {key}) == nullptr || at_path(doc, {key})->is_null()) {
      return bad_input(origin, 0, std::string("an unfinished AIPerf run: the export has no ") + key);
    }
  }
  return std::nullopt;
}

Expected<ParsedRun> parse_json(std::string_view text, const std::string& origin, ParsedRun run) {
  auto doc = parse_json_document(text, origin);
  if (!doc) {
    return doc.error();
  }
  if (auto problem = check_finished(*doc, origin)) {
    return *problem;
  }
  if (const json::Value* v = at_path(*doc, {"aiperf_version"}); v != nullptr && v->is_string()) {
    run.version = v->as_string();
  }
  for (const MetricName& m : kMetrics) {
    if (const json::Value* v = at_path(*doc, {m.tag})) {
      add_metric(run, m, stats_of(*v));
    }
  }
  read_input_config(*doc, run);
  return run;
}

std::vector<std::string> csv_cells(std::string_view line) {
  std::vector<std::string> cells;
  for (std::size_t at = 0; at <= line.size();) {
    const std::size_t comma = line.find(',', at);
    cells.emplace_back(trim(line.substr(at, comma == std::string_view::npos ? std::string_view::npos : comma - at)));
    if (comma == std::string_view::npos) {
      break;
    }
    at = comma + 1;
  }
  return cells;
}

// A CSV row's metric: its title before the unit ("Time to First Token (ms)").
const MetricName* metric_of(const std::string& title) {
  const std::string name = title.substr(0, title.find(" ("));
  for (const MetricName& m : kMetrics) {
    if (name == m.header) {
      return &m;
    }
  }
  return nullptr;
}

Expected<ParsedRun> parse_csv(std::string_view text, const std::string& origin, ParsedRun run) {
  std::vector<std::string> header;
  bool counted = false;
  for (const Line& line : split_lines(text)) {
    const std::vector<std::string> cells = csv_cells(line.text);
    if (!cells.empty() && cells[0] == "Metric") {
      header = cells;
      continue;
    }
    if (cells.size() != header.size() || header.empty()) {
      continue;
    }
    counted = counted || cells[0].rfind("Request Count", 0) == 0;
    const MetricName* m = metric_of(cells[0]);
    if (m == nullptr) {
      continue;
    }
    StatFields s;
    for (std::size_t i = 1; i < cells.size(); ++i) {
      if (auto v = parse_number(cells[i])) {
        s[header[i] == "Value" ? "value" : header[i]] = *v;
      }
    }
    add_metric(run, *m, s);
    run.last_line = line.number;
  }
  if (!counted) {
    return bad_input(origin, 0, "an unfinished AIPerf run: the CSV export has no Request Count row");
  }
  return run;
}

}  // namespace

bool looks_like_aiperf(std::string_view text) {
  const bool json = trim(text).front() == '{' && (text.find("\"aiperf_version\"") != std::string_view::npos ||
                                                  (text.find("\"time_to_first_token\"") != std::string_view::npos &&
                                                   text.find("\"input_config\"") != std::string_view::npos));
  const bool csv = text.rfind("Metric,", 0) == 0 && text.find("Time to First Token") != std::string_view::npos;
  return json || csv;
}

Expected<ParsedRun> parse_aiperf(std::string_view text, const std::string& origin) {
  ParsedRun run;
  run.tool = "aiperf";
  run.kind = RunKind::serving;
  run.workload = "llm-inference";
  run.timing = "AIPerf: client-side request timestamps over the profiling phase";
  run.first_line = 1;
  run.last_line = static_cast<int>(split_lines(text).size());
  return trim(text).front() == '{' ? parse_json(text, origin, std::move(run)) : parse_csv(text, origin, std::move(run));
}

}  // namespace dgx::detail
