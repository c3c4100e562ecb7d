// Private to log-import/: the console report that vLLM's benchmark_serving.py (`vllm bench serve`) and SGLang's
// bench_serving both print at the end of a run, and the settings of a serving run both tools' outputs share:
//   ============ Serving Benchmark Result ============
//   Backend:                                 sglang        (SGLang only)
//   Traffic request rate:                    inf
//   Max request concurrency:                 4             (vLLM: "Maximum request concurrency", often above)
//   Successful requests:                     20
//   Total input tokens: / Total generated tokens:
//   Request throughput (req/s): / Output token throughput (tok/s):
//   ---------------Time to First Token----------------
//   Mean TTFT (ms): / Median TTFT (ms): / P99 TTFT (ms):   (TPOT, ITL, E2E Latency or E2EL alike)
//   ==================================================
// People paste it behind "# " or "> ", with or without the padding spaces after the values.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "dgx/log_import/log_text.hpp"
#include "parsed_run.hpp"

namespace dgx::logs {

/// One "Label:   value" line of a block (or of the lines above it).
struct ResultEntry {
  std::string label;
  std::string value;  // trimmed, as printed ("inf", "not set", "2.34")
  int line = 0;
};

/// One "Serving Benchmark Result" block: its header line, its last line, its entries.
struct ResultBlock {
  int first_line = 0;
  int last_line = 0;
  std::vector<ResultEntry> entries;
  std::vector<ResultEntry> preamble;  // the label lines between the previous block (or the start) and this one
};

bool has_serving_result(std::string_view text);

/// Every block of a file read into a copy of `blank` (the tool's fields and model): the first run, with the others
/// in its more_runs (a sweep or repeats pasted together; import.run=N picks one).
Expected<ParsedRun> read_serving_runs(const std::vector<Line>& lines, const std::optional<CommandLine>& command,
                                      const ParsedRun& blank, const std::string& origin);

/// The metrics and load of one block into `run` (the file's command line, where shown, for what the block omits).
std::optional<Failure> read_serving_result(const ResultBlock& block, const std::optional<CommandLine>& command,
                                           ParsedRun& run, const std::string& origin);

/// serve.isl and serve.osl as the mean tokens per completed request, from a run's token totals.
void set_mean_lengths(ParsedRun& run, std::optional<double> input_tokens, std::optional<double> output_tokens,
                      double completed, int line);

/// The offered load: serve.request_rate for a finite rate; a rate of inf without a concurrency limit sends every
/// request at once (serve.arrival burst); with a limit, the concurrency alone says the load.
void set_request_rate(ParsedRun& run, double rate, int line);

}  // namespace dgx::logs
