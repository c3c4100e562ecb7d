// vLLM's serving benchmark (`vllm bench serve`, before it benchmarks/benchmark_serving.py), in its two outputs:
// - the console's Serving Benchmark Result block (serving_result.hpp), with the "Traffic request rate" and
//   "Maximum request concurrency" lines printed above it, and the command (model, random lengths) where pasted;
// - the --save-result JSON (vllm/benchmarks/serve.py): the run's settings (model_id, num_prompts, request_rate,
//   max_concurrency), its totals (completed, total_input_tokens, total_output_tokens, duration), the throughputs
//   (request_throughput, output_throughput) and the latency statistics in ms (mean_/median_/std_/p99_ of ttft,
//   tpot, itl, e2el).
#include <cmath>
#include <limits>

#include "dgx/log_import/log_text.hpp"
#include "parsed_run.hpp"
#include "serving_result.hpp"

namespace dgx::logs {

namespace {

ParsedRun vllm_run() {
  ParsedRun run;
  run.tool = "vllm-bench";
  run.kind = RunKind::serving;
  run.workload = "llm-inference";
  run.timing = "vllm bench serve: client-side request timestamps";
  return run;
}

void read_latency(const json::Value& doc, ParsedRun& run, const std::string& vllm, const std::string& name) {
  run.add_latency(name, number_at(doc, "median_" + vllm + "_ms"), number_at(doc, "p90_" + vllm + "_ms"),
                  number_at(doc, "p99_" + vllm + "_ms"), number_at(doc, "mean_" + vllm + "_ms"));
}

void read_settings(const json::Value& doc, ParsedRun& run) {
  const json::Object& o = doc.as_object();
  if (const json::Value* m = o.find("model_id"); m != nullptr && m->is_string()) {
    run.printed_model = m->as_string();
  }
  if (auto c = number_at(doc, "max_concurrency")) {
    run.set("serve.concurrency", static_cast<std::int64_t>(*c), 0);
  }
  if (const json::Value* v = o.find("vllm_version"); v != nullptr && v->is_string()) {
    run.version = v->as_string();
  }
  if (const json::Value* rate = o.find("request_rate"); rate != nullptr && !rate->is_null()) {
    const bool inf = rate->is_string() && rate->as_string() == "inf";  // Python's float("inf") is saved as "inf"
    if (inf || rate->is_number()) {
      set_request_rate(run, inf ? std::numeric_limits<double>::infinity() : rate->as_number(), 0);
    }
  }
}

Expected<ParsedRun> parse_json(std::string_view text, const std::string& origin) {
  auto doc = parse_json_document(text, origin);
  if (!doc) {
    return doc.error();
  }
  if (!doc->is_object()) {
    return bad_input(origin, 1, "not a vllm bench serve result: the JSON is not an object");
  }
  ParsedRun run = vllm_run();
  run.first_line = 1;
  run.last_line = static_cast<int>(split_lines(text).size());
  const auto completed = number_at(*doc, "completed");
  if (!completed || *completed <= 0) {
    return bad_input(origin, 0, "a vllm bench serve result without completed requests (a failed run?)");
  }
  run.set("serve.requests", static_cast<std::int64_t>(*completed), 0);
  const auto prompts = number_at(*doc, "num_prompts");
  if (prompts && *prompts > *completed) {
    run.notes.push_back(std::to_string(static_cast<long long>(*prompts - *completed)) + " of " +
                        std::to_string(static_cast<long long>(*prompts)) + " requests failed");
  }
  read_settings(*doc, run);
  set_mean_lengths(run, number_at(*doc, "total_input_tokens"), number_at(*doc, "total_output_tokens"), *completed, 0);
  read_latency(*doc, run, "ttft", "ttft");
  read_latency(*doc, run, "tpot", "tpot");
  read_latency(*doc, run, "itl", "itl");
  read_latency(*doc, run, "e2el", "e2e_latency");
  if (auto v = number_at(*doc, "output_throughput")) {
    run.metrics.push_back(metric("output_tokens_per_s", *v, "tokens/s"));
  }
  if (auto v = number_at(*doc, "request_throughput")) {
    run.metrics.push_back(metric("requests_per_s", *v, "requests/s"));
  }
  return run;
}

// The model: the benchmark command's --model, else the model `vllm serve` was started with.
void read_vllm_model(const std::vector<Line>& lines, const std::optional<CommandLine>& bench, ParsedRun& run) {
  auto model = bench ? bench->option({"--model"}) : std::nullopt;
  if (!model) {
    if (const auto server = find_command(lines, {"vllm serve"}); server && !server->args.empty()) {
      model = server->args.front().text.rfind('-', 0) == 0 ? server->option({"--model"}) : server->args.front();
    }
  }
  if (model) {
    run.printed_model = model->text;
    run.printed_model_line = model->line;
  }
}

Expected<ParsedRun> parse_console(std::string_view text, const std::string& origin) {
  const std::vector<Line> lines = split_lines(text);
  ParsedRun run = vllm_run();
  const auto command = find_command(lines, {"vllm bench serve", "benchmark_serving.py"});
  read_vllm_model(lines, command, run);
  return read_serving_runs(lines, command, run, origin);
}

}  // namespace

bool looks_like_vllm_bench(std::string_view text) {
  const auto has = [&](std::string_view key) { return text.find(key) != std::string_view::npos; };
  const bool json = trim(text).starts_with('{') &&
                    (has("\"median_ttft_ms\"") || (has("\"backend\"") && has("\"model_id\"")));  // a cut file: its head
  return json || has_serving_result(text);
}

Expected<ParsedRun> parse_vllm_bench(LineSource& lines, const std::string& origin) {
  const std::string_view text = lines.whole();  // a report or an export: a document of kilobytes
  return trim(text).starts_with('{') ? parse_json(text, origin) : parse_console(text, origin);
}

}  // namespace dgx::logs
