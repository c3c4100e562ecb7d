// AIPerf (ai-dynamo/aiperf) and its predecessor GenAI-Perf (triton-inference-server/perf_analyzer), in three forms:
// - the console table both print, "NVIDIA AIPerf | LLM Metrics" / "NVIDIA GenAI-Perf | LLM Metrics":
//     ┃ Metric ┃ avg ┃ min ┃ max ┃ p99 ┃ p90 ┃ p75 ┃ std ┃      (GenAI-Perf: "Statistic", no std; some: p50)
//     │ Time to First Token (ms) │ 18.26 │ 11.22 │ ...
//     │ Output Token Throughput Per User │ 89.23 │ ...      a long name wraps onto a second row:
//     │ (tokens/sec/user) │ │ │ ...
//   metric names in Title Case or (older) sentence case, numbers with thousands separators, rates with N/A
//   statistics; the `profile` command above it, where pasted, gives the model, concurrency and lengths;
// - AIPerf's profile_export_aiperf.json, one object per metric
//     "time_to_first_token": {"unit": "ms", "avg": 120.5, "p50": 118.2, "p90": 140.1, "p99": 171.0, ...}
//   with the run's input_config (model names, concurrency, request rate, ISL/OSL), was_cancelled, start/end times;
// - profile_export_aiperf.csv, the same statistics one metric a row ("Time to First Token (ms),120.5,...").
// A run that did not finish (no end_time or request_count, was_cancelled, failed requests) is refused: its
// statistics are of a different load than the one configured. An export cut off mid-document (pasted in part) gives
// the metrics it holds completely, and says so.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>
#include <map>

#include "command_line.hpp"
#include "dgx/log_import/log_text.hpp"
#include "parsed_run.hpp"

namespace dgx::logs {

namespace {

// AIPerf's metric tags and their names in the rows.
struct MetricName {
  const char* tag;
  const char* header;  // the CSV's and the console table's row title, before " (" (GenAI-Perf: sentence case)
  const char* row;
  bool latency;  // milliseconds, with percentiles; else a rate
};

// AIPerf's inter-token latency is (request latency - TTFT) / (output tokens - 1): the rows' TPOT.
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
    run.add_latency(m.row, stat(s, "p50"), stat(s, "p90"), stat(s, "p99"), stat(s, "avg"));
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

std::string lowercase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// A row title's metric: the title before its unit ("Time to First Token (ms)"), in any case.
const MetricName* metric_of(std::string_view title) {
  const std::string name = lowercase(trim(title.substr(0, title.find(" ("))));
  for (const MetricName& m : kMetrics) {
    if (name == lowercase(m.header)) {
      return &m;
    }
  }
  return nullptr;
}

// --- profile_export_aiperf.json ---

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
  if (const json::Value* c = at_path(doc, {"input_config", "loadgen", "concurrency"});
      c != nullptr && c->is_number() && as_count(c->as_number())) {
    run.set("serve.concurrency", *as_count(c->as_number()), 0);
  }
  if (const json::Value* r = at_path(doc, {"input_config", "loadgen", "request_rate"});
      r != nullptr && r->is_number()) {
    run.set("serve.request_rate", r->as_number(), 0);
  }
  const json::Value* isl = at_path(doc, {"input_config", "input", "prompt", "input_tokens", "mean"});
  const json::Value* osl = at_path(doc, {"input_config", "input", "prompt", "output_tokens", "mean"});
  if (isl != nullptr && isl->is_number() && as_count(isl->as_number())) {
    run.set("serve.isl", *as_count(isl->as_number()), 0);
  }
  if (osl != nullptr && osl->is_number() && as_count(osl->as_number())) {
    run.set("serve.osl", *as_count(osl->as_number()), 0);
  }
}

std::optional<Failure> check_finished(const json::Value& doc, const std::string& origin, bool cut) {
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
    if (!cut && (at_path(doc, {key}) == nullptr || at_path(doc, {key})->is_null())) {
      return bad_input(origin, 0, std::string("an unfinished AIPerf run: the export has no ") + key);
    }
  }
  return std::nullopt;
}

// Where an object cut off mid-document has its last complete member: the byte of the ',' after it, and its line.
// Zero when no member is complete.
std::pair<std::size_t, int> last_complete_member(std::string_view text) {
  std::pair<std::size_t, int> last{0, 0};
  int depth = 0;
  int line = 1;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    line += c == '\n' ? 1 : 0;
    if (in_string) {
      i += c == '\\' ? 1 : 0;
      in_string = c != '"';
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      --depth;
    } else if (c == ',' && depth == 1) {
      last = {i, line};
    }
  }
  return last;
}

// The export, or what it holds completely when it is cut off: the members before the cut, closed.
Expected<json::Value> read_export(std::string_view text, const std::string& origin, ParsedRun& run, bool& cut) {
  auto doc = parse_json_document(text, origin);
  if (doc || doc.error().message.find("truncated JSON") == std::string::npos) {
    return doc;
  }
  const auto [comma, line] = last_complete_member(text);
  auto complete = comma == 0 ? doc : parse_json_document(std::string(text.substr(0, comma)) + "}", origin);
  if (!complete) {
    return doc.error();
  }
  cut = true;
  run.last_line = line;
  run.notes.push_back("the export is cut off after line " + std::to_string(line) +
                      ": the metrics before it, whether the run finished unknown");
  return complete;
}

Expected<ParsedRun> parse_json(std::string_view text, const std::string& origin, ParsedRun run) {
  bool cut = false;
  auto doc = read_export(text, origin, run, cut);
  if (!doc) {
    return doc.error();
  }
  if (auto problem = check_finished(*doc, origin, cut)) {
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
  if (cut && run.metrics.empty()) {
    return bad_input(origin, run.last_line, "truncated JSON: the export is cut off before its first metric");
  }
  read_input_config(*doc, run);
  return run;
}

// --- profile_export_aiperf.csv ---

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

// --- the console table ---

struct TableRow {
  std::string title;
  std::vector<std::string> cells;  // the statistics, as printed
  int line = 0;
};

// The cells of a row of the rich table, "│ a │ b │" (the header row in heavy lines, "┃ a ┃ b ┃"); none for any
// other line.
std::vector<std::string> box_cells(std::string_view text) {
  std::vector<std::string> cells;
  std::size_t at = std::string_view::npos;
  for (std::size_t i = 0; i + 3 <= text.size(); ++i) {
    const std::string_view three = text.substr(i, 3);
    if (three != "\u2502" && three != "\u2503") {
      continue;
    }
    if (at != std::string_view::npos) {
      cells.emplace_back(trim(text.substr(at, i - at)));
    }
    at = i + 3;
    i += 2;
  }
  return cells;
}

struct ConsoleTable {
  std::vector<std::string> columns;  // "avg", "min", ... after the title column; empty without a header row
  std::vector<TableRow> rows;
  int first_line = 0;
  int last_line = 0;
};

ConsoleTable read_table(const std::vector<Line>& lines) {
  ConsoleTable table;
  for (const Line& line : lines) {
    std::vector<std::string> cells = box_cells(line.text);
    if (cells.size() < 2) {
      continue;
    }
    table.first_line = table.first_line == 0 ? line.number : table.first_line;
    table.last_line = line.number;
    const std::string title = cells.front();
    cells.erase(cells.begin());
    if (title.empty()) {
      continue;
    }
    if (title == "Metric" || title == "Statistic") {
      std::transform(cells.begin(), cells.end(), std::back_inserter(table.columns), lowercase);
    } else if (title.front() == '(' && !table.rows.empty() &&
               std::all_of(cells.begin(), cells.end(), [](const std::string& c) { return c.empty(); })) {
      table.rows.back().title += " " + title;  // the unit of a name too long for its column
    } else {
      table.rows.push_back({title, std::move(cells), line.number});
    }
  }
  return table;
}

bool is_table_row(std::string_view text) {
  const std::vector<std::string> cells = box_cells(text);
  return cells.size() >= 2 && metric_of(cells.front()) != nullptr;
}

bool has_console_table(std::string_view text) {
  const std::vector<Line> lines = split_lines(text);
  return std::any_of(lines.begin(), lines.end(), [](const Line& l) { return is_table_row(l.text); });
}

StatFields row_stats(const ConsoleTable& table, const TableRow& row) {
  StatFields s;
  const std::size_t n = table.columns.empty() ? std::min<std::size_t>(row.cells.size(), 1) : row.cells.size();
  for (std::size_t i = 0; i < n && (table.columns.empty() || i < table.columns.size()); ++i) {
    if (auto v = parse_number(row.cells[i])) {
      s[table.columns.empty() ? "avg" : table.columns[i]] = *v;  // the first column is the average in every version
    }
  }
  return s;
}

// A second row of the same metric is a second run pasted into the file.
std::optional<Failure> check_one_run(const ConsoleTable& table, const std::string& origin) {
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    for (std::size_t k = 0; k < i; ++k) {
      if (lowercase(table.rows[k].title) == lowercase(table.rows[i].title)) {
        return bad_input(origin, table.rows[i].line,
                         "two runs in one file: the row '" + table.rows[i].title + "' is printed at line " +
                             std::to_string(table.rows[k].line) + " and here; import one run per file");
      }
    }
  }
  return std::nullopt;
}

// Request count and the measured mean lengths, where the table has them.
void read_table_config(const ConsoleTable& table, ParsedRun& run) {
  bool lengths = false;
  for (const TableRow& row : table.rows) {
    const std::string name = lowercase(row.title.substr(0, row.title.find(" (")));
    const auto avg = stat(row_stats(table, row), "avg");
    if (!avg) {
      continue;
    }
    if (name == "request count") {
      const json::Value* asked = run.config.find("serve.requests");
      if (asked != nullptr && asked->as_number() != *avg) {
        run.notes.push_back("the table counts " + std::to_string(std::llround(*avg)) +
                            " requests, the command asked for " + json::write(*asked, 0));
      }
      run.set("serve.requests", static_cast<std::int64_t>(*avg), row.line);
    } else if ((name == "input sequence length" || name == "output sequence length") &&
               !run.config.contains(name[0] == 'i' ? "serve.isl" : "serve.osl")) {
      run.set(name[0] == 'i' ? "serve.isl" : "serve.osl", static_cast<std::int64_t>(std::llround(*avg)), row.line);
      lengths = true;
    }
  }
  if (lengths) {
    run.notes.emplace_back("serve.isl and serve.osl: the mean tokens per request the table prints");
  }
}

// What the `profile` command pasted above the table sets.
void read_command(const std::vector<Line>& lines, ParsedRun& run) {
  const auto command = find_command(lines, {"aiperf profile", "genai-perf profile"});
  if (!command) {
    return;
  }
  if (auto model = command->option({"-m", "--model", "--model-names"})) {
    run.printed_model = model->text;
    run.printed_model_line = model->line;
  }
  const auto whole = [&](std::initializer_list<std::string_view> names, const char* key) {
    if (auto v = command->number(names)) {
      run.set(key, static_cast<std::int64_t>(*v), command->option(names)->line);
    }
  };
  whole({"--concurrency"}, "serve.concurrency");
  whole({"--synthetic-input-tokens-mean", "--isl"}, "serve.isl");
  whole({"--output-tokens-mean", "--osl"}, "serve.osl");
  whole({"--request-count", "--num-requests"}, "serve.requests");
  if (auto rate = command->number({"--request-rate"})) {
    run.set("serve.request_rate", *rate, command->option({"--request-rate"})->line);
  }
}

Expected<ParsedRun> parse_console(std::string_view text, const std::string& origin, ParsedRun run) {
  const std::vector<Line> lines = split_lines(text);
  const ConsoleTable table = read_table(lines);
  if (auto problem = check_one_run(table, origin)) {
    return *problem;
  }
  run.first_line = table.first_line;
  run.last_line = table.last_line;
  read_command(lines, run);
  for (const TableRow& row : table.rows) {
    if (const MetricName* m = metric_of(row.title)) {
      add_metric(run, *m, row_stats(table, row));
    }
  }
  read_table_config(table, run);
  if (table.columns.empty()) {
    run.notes.emplace_back("a table without its header row: its first column (the average) read");
  }
  return run;
}

ParsedRun serving_run(const char* tool, const char* timing) {
  ParsedRun run;
  run.tool = tool;
  run.kind = RunKind::serving;
  run.workload = "llm-inference";
  run.timing = timing;
  return run;
}

// GenAI-Perf's table title ("NVIDIA GenAI-Perf | LLM Metrics"), its command, or its header's first cell (AIPerf
// says "Metric").
bool genai_perf_marks(std::string_view text) {
  const auto has = [&](std::string_view s) { return text.find(s) != std::string_view::npos; };
  return has("GenAI-Perf |") || has("genai-perf profile") || has("genai-perf process-export-files") ||
         has("Statistic \u2503");
}

}  // namespace

bool looks_like_aiperf(std::string_view text) {
  const bool json = trim(text).starts_with('{') && (text.find("\"aiperf_version\"") != std::string_view::npos ||
                                                    text.find("\"time_to_first_token\"") != std::string_view::npos);
  const bool csv = text.rfind("Metric,", 0) == 0 && text.find("Time to First Token") != std::string_view::npos;
  return json || csv || (has_console_table(text) && !genai_perf_marks(text));
}

Expected<ParsedRun> parse_aiperf(LineSource& lines, const std::string& origin) {
  const std::string_view text = lines.whole();  // a report or an export: a document of kilobytes
  ParsedRun run = serving_run("aiperf", "AIPerf: client-side request timestamps over the profiling phase");
  run.first_line = 1;
  run.last_line = static_cast<int>(split_lines(text).size());
  if (trim(text).starts_with('{')) {
    return parse_json(text, origin, std::move(run));
  }
  return text.rfind("Metric,", 0) == 0 ? parse_csv(text, origin, std::move(run))
                                       : parse_console(text, origin, std::move(run));
}

bool looks_like_genai_perf(std::string_view text) { return genai_perf_marks(text) && has_console_table(text); }

Expected<ParsedRun> parse_genai_perf(LineSource& lines, const std::string& origin) {
  const std::string_view text = lines.whole();  // a report or an export: a document of kilobytes
  return parse_console(text, origin,
                       serving_run("genai-perf", "GenAI-Perf: client-side request timestamps (Perf Analyzer)"));
}

}  // namespace dgx::logs
