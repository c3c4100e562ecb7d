// Private to log-import/: what a format's parser reads from a file, before --set fills the gaps and rows.cpp turns
// it into rows. A parser records what the file prints and where (the line), nothing it would have to guess.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <dgx/sdk/format.hpp>

#include "dgx/json/json.hpp"
#include "dgx/log_import/log_text.hpp"
#include "steady_state.hpp"

namespace dgx::logs {

inline constexpr std::size_t kMaxImportBytes = std::size_t{256} << 20;  // a long training log, not a dataset

enum class RunKind { training, collective, serving };

/// A metric of a row, in the names and units of <dgx/sdk/units.hpp>.
struct Metric {
  std::string name;
  double value = 0;
  std::string unit;
};

/// A string attribute of a row; `hidden` keeps it out of the terminal table.
struct Field {
  std::string key;
  std::string value;
  bool hidden = false;
};

/// One row of an imported run, as the plugin emits it (formats.cpp): mode measured, the configuration in the keys
/// of `workload`.
struct ImportedRow {
  std::string workload;
  std::string table;
  json::Object config;
  std::vector<Metric> metrics;
  std::vector<Field> fields;
  std::vector<double> sample_times;  // the steady-state steps, seconds

  void add_metric(Metric m);  // replaces a metric of the same name
  void add_field(Field f);    // replaces a field of the same key
  [[nodiscard]] const Metric* find_metric(std::string_view name) const;
};

/// One --set of the user, typed by the command line's rules.
struct SetEntry {
  std::string key;
  json::Value value;
};

/// A per-step series as the tool prints it; rows.cpp turns each kind into step times once the configuration
/// (--set included) is known.
enum class SeriesKind {
  step_time_s,           // seconds per step (Megatron-LM, NeMo)
  samples_per_s,         // MLPerf's tracked_stats throughput: step time = gbs / throughput
  tokens_per_s_per_gpu,  // torchtitan's tps: step time = gbs x seq_len / (gpus x tps)
};

/// One nccl-tests table line, one placement of it.
struct CollectiveLine {
  double size_bytes = 0;
  double count = 0;
  std::string type;
  std::string redop;
  std::string placement;  // "out-of-place" or "in-place"
  double time_us = 0;
  double algbw = 0;             // GB/s
  double busbw = 0;             // GB/s
  std::optional<double> wrong;  // nccl-tests prints N/A without a check
  int line = 0;                 // where the file prints it
};

struct ParsedRun {
  std::string tool;     // "torchtitan", as the format is named (formats.cpp)
  std::string version;  // as printed; empty when the file does not say
  RunKind kind = RunKind::training;
  std::string workload;  // "llm-pretrain", "llm-finetune", "llm-inference", or a collective ("all_reduce")
  std::string timing;    // how the tool timed what it printed
  int first_line = 0;    // the lines read: the rows' `file` field
  int last_line = 0;

  json::Object config;                 // catalog keys (model, gpus, parallel.tp, ...) the file prints
  std::map<std::string, int> line_of;  // where each config key was read
  json::Object inferred;      // what the file suggests by a line it lacks (eager: no torch.compile): --set overrules
  std::string printed_model;  // the model's name as printed, for the catalog table (model_names.cpp)
  int printed_model_line = 0;
  std::string printed_device;                 // a GPU's CUDA name as printed ("NVIDIA H100 80GB HBM3")
  std::vector<std::string> model_candidates;  // catalog models whose architecture matches what the file prints

  SeriesKind series_kind = SeriesKind::step_time_s;
  std::vector<double> series;              // training: one value per logged step, in order
  std::vector<long> steps;                 // the step (iteration) number of each series value, where printed
  std::vector<int> series_lines;           // the line of each series value, where the parser records it
  std::vector<double> tflops;              // per GPU, per logged step, where printed
  std::vector<double> mfu;                 // percent, per logged step, where printed
  std::vector<CollectiveLine> lines;       // collectives
  std::vector<Metric> metrics;             // the tool's own summary values, in the rows' names and units: serving's
                                           // TTFT/TPOT/throughput, MLPerf Training's time_to_train [min]
  std::vector<std::string> notes;          // said in the row's field `note` (e.g. a table without its footer)
  std::optional<std::size_t> user_warmup;  // --set import.warmup=N: the warm-up steps to drop, 0 allowed
  bool warm_at_start = false;              // the tool warms up before it times (MLPerf: before run_start)
  std::optional<std::size_t> user_run;     // --set import.run=N: which of the file's runs (1-based)
  std::vector<ParsedRun> more_runs;        // the file's other runs, in order (a sweep pasted into one file)
  std::optional<std::int64_t> time;        // when the run ran (UTC seconds): as the log prints it, or --set run.time
  std::string time_from;                   // where `time` comes from: "line 12", "--set run.time"

  /// The warm-up rule of this run's series (steady_state.hpp): where the log starts, the user's count.
  [[nodiscard]] WarmupRule warmup_rule() const;

  /// Records a config value the file prints, and its line.
  void set(const std::string& key, json::Value value, int line);
  /// set(), unless the file printed `key` before with another value: then two runs share the file (a restart
  /// with another batch size, a second argument block) and the failure names both lines.
  std::optional<Failure> agree(const std::string& key, const json::Value& value, int line, const std::string& origin);
  /// A serving latency printed in milliseconds: `name` [s] (the median), `name`.p90, `name`.p99 and `name`.mean
  /// where printed (a mean is never taken for the median).
  void add_latency(const std::string& name, std::optional<double> median_ms, std::optional<double> p90_ms,
                   std::optional<double> p99_ms, std::optional<double> mean_ms = std::nullopt);
};

inline Metric metric(std::string name, double value, std::string unit) {
  return Metric{std::move(name), value, std::move(unit)};
}

inline Field field(std::string key, std::string value, bool hidden = false) {
  return Field{std::move(key), std::move(value), hidden};
}

/// The --set entries that are options of the import itself (import.warmup=N, run.time=ISO) applied to `run`; the
/// others, for merge_sets, in `rest`.
std::optional<Failure> apply_import_options(ParsedRun& run, const std::vector<SetEntry>& sets,
                                            std::vector<SetEntry>& rest, const std::string& origin);

/// The one run of a file that holds several (more_runs): import.run=N's, else a usage failure naming how many
/// and where they start; with `first_by_default` (inspection) the first, with a note. The import options carry over.
std::optional<Failure> select_run(ParsedRun& run, const std::string& origin, bool first_by_default);

/// Fills `run.config` from --set (config_merge.cpp): a --set of a key the file prints must agree with it, the
/// printed model and GPU become catalog names, and every key a row of this kind needs must then be known.
std::optional<Failure> merge_sets(ParsedRun& run, const std::vector<SetEntry>& sets, const std::string& origin);

/// What the file says by itself (reading.cpp), for dgxhost import --inspect: `sets` may hold import.warmup=N and
/// import.run=N (other keys are ignored here).
Expected<sdk::LogReading> inspect_run(ParsedRun run, const std::vector<SetEntry>& sets, const std::string& origin);

/// Refuses a value no tool measures (plausibility.cpp): a zero, negative or non-finite time or rate, a step under a
/// microsecond. check_fabric, once the system is known: a bus bandwidth beyond 1.5 x its fabric's peak.
std::optional<Failure> check_plausible(const ParsedRun& run, const std::string& origin);
std::optional<Failure> check_fabric(const ParsedRun& run, const std::string& origin);

/// The rows of a run whose configuration is complete (rows.cpp).
Expected<std::vector<ImportedRow>> make_rows(const ParsedRun& run, const std::string& origin);

/// A format's parser: the lines of one file (read once, in order), `origin` naming it in failures.
using Parser = Expected<ParsedRun> (*)(LineSource& lines, const std::string& origin);

/// The parse of `text` by the format whose probe scores it highest among all of dgxhost's (formats.cpp), for the
/// parsers' own tests and the fuzz targets; the host tells formats apart the same way through the plugins' probes.
Expected<ParsedRun> parse_any(std::string_view text, const std::string& origin);
/// The line probe of that format (whether one line is one of its data lines), or nullptr when none reads `text`.
bool (*data_line_of(std::string_view text))(std::string_view);

// One per format, each in its own file.
bool looks_like_nemo(std::string_view text);
Expected<ParsedRun> parse_nemo_log(LineSource& lines, const std::string& origin);
bool looks_like_megatron(std::string_view text);
Expected<ParsedRun> parse_megatron_log(LineSource& lines, const std::string& origin);
bool looks_like_torchtitan(std::string_view text);
Expected<ParsedRun> parse_torchtitan_log(LineSource& lines, const std::string& origin);
bool looks_like_mllog(std::string_view text);
Expected<ParsedRun> parse_mllog(LineSource& lines, const std::string& origin);
bool looks_like_mlperf_inference(std::string_view text);
Expected<ParsedRun> parse_mlperf_inference(LineSource& lines, const std::string& origin);
bool looks_like_nccl_tests(std::string_view text);
Expected<ParsedRun> parse_nccl_tests(LineSource& lines, const std::string& origin);
bool looks_like_aiperf(std::string_view text);
Expected<ParsedRun> parse_aiperf(LineSource& lines, const std::string& origin);
bool looks_like_genai_perf(std::string_view text);  // in aiperf.cpp: the table AIPerf inherited
Expected<ParsedRun> parse_genai_perf(LineSource& lines, const std::string& origin);
bool looks_like_sglang_bench(std::string_view text);
Expected<ParsedRun> parse_sglang_bench(LineSource& lines, const std::string& origin);
bool looks_like_vllm_bench(std::string_view text);
Expected<ParsedRun> parse_vllm_bench(LineSource& lines, const std::string& origin);
bool looks_like_trtllm_bench(std::string_view text);
Expected<ParsedRun> parse_trtllm_bench(LineSource& lines, const std::string& origin);

}  // namespace dgx::logs
