// trtllm-bench throughput's report (tensorrt_llm/bench/dataclasses/reporting.py): blocks under "= TITLE" banners,
//   = PYTORCH BACKEND / = ENGINE DETAILS    Model:, TensorRT-LLM Version:, Dtype:, Quantization:
//   = REQUEST DETAILS                        Number of requests:, Average Input/Output Length (tokens):
//   = WORLD + RUNTIME INFORMATION            TP Size:, PP Size:, EP Size:, Max Runtime Batch Size:
//   = PERFORMANCE OVERVIEW                   Request Throughput (req/sec):, Total Output Throughput (tokens/sec):,
//                                            Per User Output Throughput ..., Per GPU Output Throughput ...
// and the per-request breakdowns in ms: "[TTFT] P50    : 52269.7", "[TPOT] P99 ...", "[Latency] AVERAGE: ...".
// Reports of 0.17 and before put the lengths in the PERFORMANCE OVERVIEW and call the output rate
// "Token Throughput (tokens/sec)" (the output tokens: "Total Token Throughput" of later ones adds the input).
#include <cmath>

#include "dgx/log_import/log_text.hpp"
#include "parsed_run.hpp"

namespace dgx::logs {

namespace {

constexpr std::string_view kOverview = "= PERFORMANCE OVERVIEW";

// "[TTFT] P50    : 12.3" -> 12.3 for tag "TTFT", statistic "P50".
std::optional<double> breakdown(const std::vector<Line>& lines, const std::string& tag, const std::string& stat) {
  const std::string label = "[" + tag + "] " + stat;
  for (const Line& l : lines) {
    if (trim(l.text).rfind(label, 0) == 0) {
      return number_after(l.text, label);
    }
  }
  return std::nullopt;
}

std::optional<double> labelled(const std::vector<Line>& lines, std::string_view label, int* line = nullptr) {
  for (const Line& l : lines) {
    if (trim(l.text).rfind(label, 0) == 0) {
      if (line != nullptr) {
        *line = l.number;
      }
      return number_after(l.text, label);
    }
  }
  return std::nullopt;
}

// The percentile breakdown where printed, and the average (older versions print only that).
void read_latency(const std::vector<Line>& lines, ParsedRun& run, const std::string& tag, std::string_view average,
                  const std::string& name) {
  auto mean = breakdown(lines, tag, "AVERAGE");
  run.add_latency(name, breakdown(lines, tag, "P50"), breakdown(lines, tag, "P90"), breakdown(lines, tag, "P99"),
                  mean ? mean : labelled(lines, average));
}

// The number after the ':' of the first line starting with one of `labels`.
std::optional<double> rate(const std::vector<Line>& lines, std::initializer_list<std::string_view> labels) {
  for (std::string_view label : labels) {
    for (const Line& l : lines) {
      const std::string_view s = trim(l.text);
      if (s.rfind(label, 0) == 0 && s.find(':') != std::string_view::npos) {
        return parse_number(trim(s.substr(s.find(':') + 1)));
      }
    }
  }
  return std::nullopt;
}

void read_engine(const std::vector<Line>& lines, ParsedRun& run) {
  for (const Line& l : lines) {
    const std::string_view s = trim(l.text);
    if (auto model = text_after(s, "Model:"); model && s.rfind("Model:", 0) == 0) {
      run.printed_model = *model;
      run.printed_model_line = l.number;
    } else if (auto version = text_after(s, "TensorRT-LLM Version:")) {
      run.version = *version;
    } else if (auto quant = text_after(s, "Quantization:"); quant && s.rfind("Quantization:", 0) == 0) {
      if (*quant == "FP8") {
        run.set("precision", "fp8", l.number);
      } else if (*quant == "NVFP4") {
        run.set("precision", "nvfp4", l.number);
      }
    } else if (auto dtype = text_after(s, "Dtype:");
               dtype && s.rfind("Dtype:", 0) == 0 && *dtype == "bfloat16" && !run.config.contains("precision")) {
      run.set("precision", "bf16", l.number);
    }
  }
}

void read_world(const std::vector<Line>& lines, ParsedRun& run) {
  std::int64_t gpus = 1;
  int line = 0;
  for (auto [label, key] : {std::pair<const char*, const char*>{"TP Size:", "parallel.tp"},
                            {"PP Size:", "parallel.pp"},
                            {"EP Size:", "parallel.ep"}}) {
    if (auto v = labelled(lines, label, &line)) {
      run.set(key, static_cast<std::int64_t>(*v), line);
      gpus *= std::string(key) == "parallel.ep" ? 1 : static_cast<std::int64_t>(*v);
    }
  }
  if (run.config.contains("parallel.tp")) {
    run.set("serve.fleet_gpus", gpus, run.line_of["parallel.tp"]);  // trtllm-bench's world size is TP x PP
  }
}

}  // namespace

bool looks_like_trtllm_bench(std::string_view text) {
  return text.find(kOverview) != std::string_view::npos || text.find("= ENGINE DETAILS") != std::string_view::npos ||
         text.find("= PYTORCH BACKEND") != std::string_view::npos;
}

Expected<ParsedRun> parse_trtllm_bench(LineSource& source, const std::string& origin) {
  const std::string_view text = source.whole();  // a report or an export: a document of kilobytes
  const std::vector<Line> lines = split_lines(text);
  if (text.find(kOverview) == std::string_view::npos) {
    return bad_input(origin, static_cast<int>(lines.size()),
                     "truncated: a trtllm-bench report without its PERFORMANCE OVERVIEW (the run stopped early?)");
  }
  ParsedRun run;
  run.tool = "trtllm-bench";
  run.kind = RunKind::serving;
  run.workload = "llm-inference";
  run.timing = "trtllm-bench: per-request timestamps inside the benchmark";
  run.first_line = lines.front().number;
  run.last_line = lines.back().number;
  read_engine(lines, run);
  read_world(lines, run);
  int line = 0;
  if (auto requests = labelled(lines, "Number of requests:", &line)) {
    run.set("serve.requests", static_cast<std::int64_t>(*requests), line);
  }
  if (auto isl = labelled(lines, "Average Input Length (tokens):", &line)) {
    run.set("serve.isl", static_cast<std::int64_t>(std::llround(*isl)), line);
  }
  if (auto osl = labelled(lines, "Average Output Length (tokens):", &line)) {
    run.set("serve.osl", static_cast<std::int64_t>(std::llround(*osl)), line);
  }
  read_latency(lines, run, "TTFT", "Average time-to-first-token [TTFT] (ms):", "ttft");
  read_latency(lines, run, "TPOT", "Average time-per-output-token [TPOT] (ms):", "tpot");
  read_latency(lines, run, "Latency", "Average request latency (ms):", "e2e_latency");
  if (auto v = rate(lines, {"Total Output Throughput (tokens/sec):", "Token Throughput (tokens/sec):"})) {
    run.metrics.push_back(metric("output_tokens_per_s", *v, "tokens/s"));
  }
  if (auto v = rate(lines, {"Per GPU Output Throughput"})) {
    run.metrics.push_back(metric("output_tokens_per_s_per_gpu", *v, "tokens/s"));
  }
  if (auto v = rate(lines, {"Per User Output Throughput"})) {
    run.metrics.push_back(metric("output_tokens_per_s_per_user", *v, "tokens/s"));
  }
  if (auto v = rate(lines, {"Request Throughput (req/sec):"})) {
    run.metrics.push_back(metric("requests_per_s", *v, "requests/s"));
  }
  return run;
}

}  // namespace dgx::logs
