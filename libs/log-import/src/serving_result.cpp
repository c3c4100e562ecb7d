#include "serving_result.hpp"

#include <cmath>
#include <limits>
#include <map>

namespace dgx::logs {

namespace {

constexpr std::string_view kHeader = "Serving Benchmark Result";

// A line without what the paste put before it: "# " of a shell comment, "> " of a quote.
std::string_view unquoted(std::string_view text) {
  text = trim(text);
  while (text.size() >= 2 && (text.front() == '#' || text.front() == '>') && text[1] == ' ') {
    text = trim(text.substr(2));
  }
  return text;
}

bool all_of(std::string_view text, char c) {
  return text.size() >= 10 && text.find_first_not_of(c) == std::string_view::npos;
}

// "Mean TTFT (ms):   12.3" -> {"Mean TTFT (ms)", "12.3"}; empty for a line of another kind.
std::optional<ResultEntry> entry_of(const Line& line) {
  const std::string_view text = unquoted(line.text);
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0) {
    return std::nullopt;
  }
  const std::string_view value = trim(text.substr(colon + 1));
  if (value.empty()) {
    return std::nullopt;
  }
  return ResultEntry{std::string(trim(text.substr(0, colon))), std::string(value), line.number};
}

const ResultEntry* find(const std::vector<ResultEntry>& entries, std::initializer_list<std::string_view> labels) {
  for (const ResultEntry& e : entries) {
    for (std::string_view label : labels) {
      if (e.label == label) {
        return &e;
      }
    }
  }
  return nullptr;
}

// The number a value starts with ("1.0 (Poisson process)" -> 1.0); "inf" is infinity, "not set" none.
std::optional<double> value_number(const ResultEntry* e) {
  if (e == nullptr) {
    return std::nullopt;
  }
  const std::string_view value = e->value;
  const std::string_view first = value.substr(0, value.find(' '));
  if (first == "inf") {
    return std::numeric_limits<double>::infinity();
  }
  return parse_number(first);
}

// "Median TTFT (ms)" -> latency "ttft", statistic "Median".
struct LatencyLabel {
  std::string name;
  std::string stat;
};

std::optional<LatencyLabel> latency_label(std::string_view label) {
  constexpr std::string_view unit = " (ms)";
  const std::size_t space = label.find(' ');
  if (space == std::string_view::npos || label.size() <= unit.size() || !label.ends_with(unit)) {
    return std::nullopt;
  }
  const std::string_view stat = label.substr(0, space);
  const std::string_view what = label.substr(space + 1, label.size() - unit.size() - space - 1);
  const std::pair<std::string_view, const char*> names[] = {
      {"TTFT", "ttft"}, {"TPOT", "tpot"}, {"ITL", "itl"}, {"E2E Latency", "e2e_latency"}, {"E2EL", "e2e_latency"}};
  for (const auto& [printed, name] : names) {
    if (what == printed && (stat == "Mean" || stat == "Median" || stat == "P90" || stat == "P99")) {
      return LatencyLabel{name, std::string(stat)};
    }
  }
  return std::nullopt;
}

void read_latencies(const ResultBlock& block, ParsedRun& run) {
  std::map<std::string, std::map<std::string, double>> stats;  // name -> statistic -> ms
  std::vector<std::string> order;
  for (const ResultEntry& e : block.entries) {
    const auto l = latency_label(e.label);
    const auto v = value_number(&e);
    if (!l || !v) {
      continue;
    }
    if (stats.find(l->name) == stats.end()) {
      order.push_back(l->name);
    }
    stats[l->name][l->stat] = *v;
  }
  for (const std::string& name : order) {
    const auto& s = stats[name];
    const auto at = [&](const char* stat) {
      const auto it = s.find(stat);
      return it == s.end() ? std::nullopt : std::optional<double>(it->second);
    };
    run.add_latency(name, at("Median"), at("P90"), at("P99"), at("Mean"));
  }
}

// The load the run offered: the block's lines first, the lines above it, then the command line.
std::optional<Failure> read_load(const ResultBlock& block, const std::optional<CommandLine>& command, ParsedRun& run,
                                 const std::string& origin) {
  const std::initializer_list<std::string_view> concurrency = {"Max request concurrency", "Maximum request concurrency",
                                                               "Max reqeuest concurrency"};  // a typo of SGLang 0.4
  for (const auto* entries : {&block.entries, &block.preamble}) {
    if (const ResultEntry* e = find(*entries, concurrency); e != nullptr && value_number(e)) {
      if (auto problem = run.agree("serve.concurrency", static_cast<std::int64_t>(*value_number(e)), e->line, origin)) {
        return problem;
      }
    }
  }
  if (command) {
    if (auto c = command->number({"--max-concurrency"})) {
      if (auto problem = run.agree("serve.concurrency", static_cast<std::int64_t>(*c),
                                   command->option({"--max-concurrency"})->line, origin)) {
        return problem;
      }
    }
  }
  const ResultEntry* rate = find(block.entries, {"Traffic request rate"});
  rate = rate != nullptr ? rate : find(block.preamble, {"Traffic request rate"});
  if (auto r = value_number(rate)) {
    set_request_rate(run, *r, rate->line);
  }
  return std::nullopt;
}

// ISL and OSL: the command's fixed random lengths where it shows them, else the means of the printed totals.
void read_lengths(const ResultBlock& block, const std::optional<CommandLine>& command, ParsedRun& run,
                  double completed) {
  const auto dataset = command ? command->option({"--dataset-name"}) : std::nullopt;
  const bool random = command && (!dataset || dataset->text == "random");
  const auto isl = random ? command->option({"--random-input-len"}) : std::nullopt;
  const auto osl = random ? command->option({"--random-output-len"}) : std::nullopt;
  if (isl && osl && parse_number(isl->text) && parse_number(osl->text)) {
    run.set("serve.isl", static_cast<std::int64_t>(*parse_number(isl->text)), isl->line);
    run.set("serve.osl", static_cast<std::int64_t>(*parse_number(osl->text)), osl->line);
    return;
  }
  const ResultEntry* input = find(block.entries, {"Total input tokens"});
  const ResultEntry* output = find(block.entries, {"Total generated tokens"});
  set_mean_lengths(run, value_number(input), value_number(output), completed,
                   input != nullptr ? input->line : block.first_line);
}

void read_rates(const ResultBlock& block, ParsedRun& run) {
  if (auto v = value_number(find(block.entries, {"Output token throughput (tok/s)"}))) {
    run.metrics.push_back(metric("output_tokens_per_s", *v, "tokens/s"));
  }
  if (auto v = value_number(find(block.entries, {"Request throughput (req/s)"}))) {
    run.metrics.push_back(metric("requests_per_s", *v, "requests/s"));
  }
}

}  // namespace

bool has_serving_result(std::string_view text) { return text.find(kHeader) != std::string_view::npos; }

namespace {

std::vector<ResultBlock> serving_result_blocks(const std::vector<Line>& lines) {
  std::vector<ResultBlock> blocks;
  ResultBlock* open = nullptr;
  std::vector<ResultEntry> above;
  for (const Line& line : lines) {
    const std::string_view text = unquoted(line.text);
    if (text.find(kHeader) != std::string_view::npos && text.front() == '=') {
      blocks.push_back({line.number, line.number, {}, std::move(above)});
      above.clear();
      open = &blocks.back();
      continue;
    }
    const auto entry = entry_of(line);
    if (open == nullptr) {
      if (entry) {
        above.push_back(*entry);
      }
      continue;
    }
    if (entry || text.find("---") != std::string_view::npos) {  // a value, or a section's title
      if (entry) {
        open->entries.push_back(*entry);
      }
      open->last_line = line.number;
      continue;
    }
    if (all_of(text, '=')) {
      open->last_line = line.number;  // the footer
    }
    open = nullptr;  // the footer, or the paste goes on with something else
  }
  return blocks;
}

}  // namespace

Expected<ParsedRun> read_serving_runs(const std::vector<Line>& lines, const std::optional<CommandLine>& command,
                                      const ParsedRun& blank, const std::string& origin) {
  const std::vector<ResultBlock> blocks = serving_result_blocks(lines);
  if (blocks.empty()) {
    return bad_input(origin, 0, "no '============ Serving Benchmark Result ============' block: nothing to import");
  }
  ParsedRun first = blank;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    ParsedRun run = blank;
    if (auto problem = read_serving_result(blocks[i], command, run, origin)) {
      return *problem;
    }
    if (i == 0) {
      first = std::move(run);
    } else {
      first.more_runs.push_back(std::move(run));
    }
  }
  return first;
}

std::optional<Failure> read_serving_result(const ResultBlock& block, const std::optional<CommandLine>& command,
                                           ParsedRun& run, const std::string& origin) {
  run.first_line = block.first_line;
  run.last_line = block.last_line;
  const ResultEntry* completed = find(block.entries, {"Successful requests"});
  const auto count = value_number(completed);
  if (!count || *count <= 0) {
    return bad_input(origin, block.first_line, "a Serving Benchmark Result without successful requests");
  }
  if (!find(block.entries, {"Output token throughput (tok/s)"})) {
    return bad_input(origin, block.last_line,
                     "truncated: the Serving Benchmark Result block ends before its Output token throughput");
  }
  run.set("serve.requests", static_cast<std::int64_t>(*count), completed->line);
  if (auto failed = value_number(find(block.entries, {"Failed requests"})); failed && *failed > 0) {
    run.notes.push_back(std::to_string(static_cast<long long>(*failed)) + " requests failed");
  }
  if (const ResultEntry* backend = find(block.entries, {"Backend"})) {
    run.notes.push_back("backend " + backend->value);
  }
  if (auto problem = read_load(block, command, run, origin)) {
    return problem;
  }
  read_lengths(block, command, run, *count);
  read_rates(block, run);
  read_latencies(block, run);
  return std::nullopt;
}

void set_mean_lengths(ParsedRun& run, std::optional<double> input_tokens, std::optional<double> output_tokens,
                      double completed, int line) {
  if (input_tokens) {
    run.set("serve.isl", static_cast<std::int64_t>(std::llround(*input_tokens / completed)), line);
  }
  if (output_tokens) {
    run.set("serve.osl", static_cast<std::int64_t>(std::llround(*output_tokens / completed)), line);
  }
  if (input_tokens || output_tokens) {
    run.notes.emplace_back("serve.isl and serve.osl: the mean tokens per completed request");
  }
}

void set_request_rate(ParsedRun& run, double rate, int line) {
  if (std::isfinite(rate)) {
    run.set("serve.request_rate", rate, line);
  } else if (!run.config.contains("serve.concurrency")) {
    run.set("serve.arrival", "burst", line);
  }
}

}  // namespace dgx::logs
