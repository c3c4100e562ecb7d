// `vllm bench serve --save-result`'s JSON (vllm/benchmarks/serve.py): the run's settings (model_id, num_prompts,
// request_rate, max_concurrency), its totals (completed, total_input_tokens, total_output_tokens, duration), the
// throughputs (request_throughput, output_throughput) and the latency statistics in ms (mean_/median_/std_/p99_
// of ttft, tpot, itl, e2el).
#include <cmath>

#include "log_text.hpp"
#include "parsed_run.hpp"

namespace dgx::detail {

namespace {

void read_latency(const json::Value& doc, ParsedRun& run, const std::string& vllm, const std::string& name) {
  run.add_latency(name, number_at(doc, "median_" + vllm + "_ms"), number_at(doc, "p90_" + vllm + "_ms"),
                  number_at(doc, "p99_" + vllm + "_ms"));
}

// ISL and OSL are the run's means: total tokens over completed requests.
void read_lengths(const json::Value& doc, ParsedRun& run, double completed) {
  const auto input = number_at(doc, "total_input_tokens");
  const auto output = number_at(doc, "total_output_tokens");
  if (input) {
    run.set("serve.isl", static_cast<std::int64_t>(std::llround(*input / completed)), 0);
  }
  if (output) {
    run.set("serve.osl", static_cast<std::int64_t>(std::llround(*output / completed)), 0);
  }
  run.notes.emplace_back("serve.isl and serve.osl: the mean tokens per completed request");
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
    run.notes.push_back("request rate " + (rate->is_string() ? rate->as_string() : json::write(*rate, 0)));
  }
}

}  // namespace

bool looks_like_vllm_bench(std::string_view text) {
  const auto has = [&](std::string_view key) { return text.find(key) != std::string_view::npos; };
  return trim(text).front() == '{' &&
         (has("\"median_ttft_ms\"") || (has("\"backend\"") && has("\"model_id\"")));  // a cut file has its head
}

Expected<ParsedRun> parse_vllm_bench(std::string_view text, const std::string& origin) {
  auto doc = parse_json_document(text, origin);
  if (!doc) {
    return doc.error();
  }
  if (!doc->is_object()) {
    return bad_input(origin, 1, "not a vllm bench serve result: the JSON is not an object");
  }
  ParsedRun run;
  run.tool = "vllm-bench";
  run.kind = RunKind::serving;
  run.workload = "llm-inference";
  run.timing = "vllm bench serve: client-side request timestamps";
  run.first_line = 1;
  run.last_line = static_cast<int>(split_lines(text).size());
  const auto completed = number_at(*doc, "completed");
  if (!completed || *completed <= 0) {
    return bad_input(origin, 0, "a vllm bench serve result without completed requests (a failed run?)");
  }
  const auto prompts = number_at(*doc, "num_prompts");
  if (prompts && *prompts > *completed) {
    run.notes.push_back(std::to_string(static_cast<long long>(*prompts - *completed)) + " of " +
                        std::to_string(static_cast<long long>(*prompts)) + " requests failed");
  }
  read_settings(*doc, run);
  read_lengths(*doc, run, *completed);
  read_latency(*doc, run, "ttft", "ttft");
  read_latency(*doc, run, "tpot", "tpot");
  read_latency(*doc, run, "e2el", "e2e_latency");
  if (auto v = number_at(*doc, "output_throughput")) {
    run.metrics.push_back(metric("output_tokens_per_s", *v, "tokens/s"));
  }
  if (auto v = number_at(*doc, "request_throughput")) {
    run.metrics.push_back(metric("requests_per_s", *v, "requests/s"));
  }
  return run;
}

}  // namespace dgx::detail
