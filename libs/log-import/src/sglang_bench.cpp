// SGLang's `python -m sglang.bench_serving` (sglang/bench_serving.py): the Serving Benchmark Result block that
// vLLM's benchmark prints too (serving_result.hpp), with SGLang's own lines: "Backend:" (the server it drove: sglang,
// sglang-oai, vllm, ...), "Total generated tokens (retokenized)", "Concurrency:" (the mean measured, not the limit),
// an End-to-End Latency section and, in 0.4, the typo "Max reqeuest concurrency". The model is the bench command's
// --model, else the --model-path of the sglang.launch_server command pasted with it.
#include "dgx/log_import/log_text.hpp"
#include "parsed_run.hpp"
#include "serving_result.hpp"

namespace dgx::logs {

namespace {

void read_sglang_model(const std::vector<Line>& lines, const std::optional<CommandLine>& bench, ParsedRun& run) {
  auto model = bench ? bench->option({"--model"}) : std::nullopt;
  if (!model) {
    if (const auto server = find_command(lines, {"sglang.launch_server"})) {
      model = server->option({"--model-path", "--model"});
    }
  }
  if (model) {
    run.printed_model = model->text;
    run.printed_model_line = model->line;
  }
}

}  // namespace

bool looks_like_sglang_bench(std::string_view text) {
  const auto has = [&](std::string_view s) { return text.find(s) != std::string_view::npos; };
  return has_serving_result(text) && (has("Backend:") || has("(retokenized)") || has("sglang.bench_serving"));
}

Expected<ParsedRun> parse_sglang_bench(LineSource& source, const std::string& origin) {
  const std::string_view text = source.whole();  // a report or an export: a document of kilobytes
  const std::vector<Line> lines = split_lines(text);
  ParsedRun run;
  run.tool = "sglang-bench";
  run.kind = RunKind::serving;
  run.workload = "llm-inference";
  run.timing = "sglang bench_serving: client-side request timestamps";
  const auto command = find_command(lines, {"sglang.bench_serving", "bench_serving.py"});
  read_sglang_model(lines, command, run);
  return read_serving_runs(lines, command, run, origin);
}

}  // namespace dgx::logs
