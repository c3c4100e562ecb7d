// dgxhost import: the logs and result files of the tools people already run, read into dgx.results/1 rows of mode
// measured, each labelled with the tool that measured it ("measured (imported: torchtitan)"). The host knows no
// format: the plugins that know each domain declare the formats they read (ABI 1.3, <dgx/sdk/format.hpp>;
// libs/log-import has dgxhost's own: training logs in llm-pretrain, serving benchmarks in llm-inference,
// nccl-tests in comm). The host opens the file safely (a bounded regular file; FIFOs, devices and folders refused at
// once) and reads it a block at a time, never whole (log_input.hpp), refuses what is no text, takes off what
// launchers add to each line (launcher_output.hpp), keeps one rank's lines, asks every format's probe of the file's
// first lines and streams the lines to the highest score's reader; when several ranks log their steps it
// reads each rank and names a straggler. What the file prints is read from it, what it does not comes from --set,
// and nothing is guessed: a key a row needs and the file lacks is an error naming every such key and the --set that
// supplies it. docs/import-formats.md lists the formats, the rows' keys and metrics, with a real sample of each.
//
// Every row has the fields source ("imported: <tool> <version>"), tool, tool_version (when printed), file
// ("PATH:FIRST-LAST", the lines read), timing (how the tool timed it) and, for series, steady_state ("median of
// 90 steps, 10 warm-up steps dropped"); its label is the tool (what stays the same from one night's log to the next).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dgx/core/config/search_paths.hpp"
#include "dgx/core/distributed/comm.hpp"
#include "dgx/core/plugin/plugin_registry.hpp"
#include "dgx/core/results/document.hpp"
#include "dgx/core/support/expected.hpp"
#include "dgx/core/support/log.hpp"

namespace dgx {

namespace detail {
class LogInput;  // core/src/import/log_input.hpp
}

/// What a file says by itself, before any --set: what `dgxhost import --inspect` prints, and what a user needs to
/// see when the import asks for keys. `values` are the headline numbers a careful reader computes from the file
/// alone, in the rows' metric names and units: a training log's steady-state step_time [s],
/// tokens_per_s_per_gpu or samples_per_s (as the tool logs it) and MLPerf's time_to_train [min]; a collective's busbw
/// and algbw [GB/s] at its largest message size (out-of-place unless only in-place is printed); a serving
/// benchmark's summary (output_tokens_per_s, ttft, tpot, ...). A series of fewer steps than a row needs is still
/// read (`steady_state` says how many steps were used, `notes` that it is no steady state).
struct LogReading {
  std::string tool;     // "torchtitan", as the format is named
  std::string version;  // as printed; empty when the file does not say
  std::string kind;     // "training", "collective" or "serving"
  std::string workload;
  std::string timing;        // how the tool timed what it printed
  std::string lines;         // "FIRST-LAST": the lines read
  std::string steady_state;  // series only: "median of 9 steps, 1 warm-up step dropped"
  std::vector<Metric> values;
  std::vector<Field> printed;  // the configuration the file prints, with its line ("parallel.tp", "8 (line 4)")
  std::vector<std::string> notes;
};

/// Reads files with the formats of the loaded plugins. Every call into a plugin is guarded (call_guard.hpp), and a
/// reader that fails is a usage failure naming the file (its message names the line) or, for a broken plugin, a
/// failure naming the plugin and the format.
class LogImporter {
public:
  /// `registry`, `logger` and `comm` must outlive the importer; `config_paths` are the folders the plugins' catalog
  /// searches (the host's --config-dir, DGX_CONFIG_PATH, the install's configs).
  LogImporter(const PluginRegistry& registry, const Logger& logger, HostComm& comm,
              std::vector<SearchPath> config_paths);

  /// The formats the loaded plugins read ("nccl-tests", "torchtitan", ...), for messages and --help.
  [[nodiscard]] std::vector<std::string> formats() const;

  /// The rows of one file's text, held in memory; `origin` names it in errors and in the
  /// rows' `file` field; `sets` are --set KEY=VALUE entries (typed as the command line types them) for what the file
  /// does not print, and a --set that contradicts the file (a GPU count, a model) is an error naming both; `file_time`
  /// dates a run whose log prints no time. A usage failure (exit code 2) for an empty, binary, unknown or truncated
  /// file (naming the line), a run with no steady state (a crashed run), several runs in one file, or missing keys.
  [[nodiscard]] Expected<std::vector<ResultRow>> import_text(std::string text, const std::string& origin,
                                                             const std::vector<std::string>& sets,
                                                             std::optional<std::int64_t> file_time = {}) const;

  /// The LogReading of one file's text; `sets` may hold import.warmup=N (other keys are ignored here). A usage
  /// failure for what import_text refuses before --set matters: no log, no known format, a truncated or crashed run.
  [[nodiscard]] Expected<LogReading> inspect_text(std::string text, const std::string& origin,
                                                  const std::vector<std::string>& sets = {}) const;

  /// inspect_text of a file read as a regular file of bounded size.
  [[nodiscard]] Expected<LogReading> inspect_file(const std::string& path,
                                                  const std::vector<std::string>& sets = {}) const;

  /// import_text of each file in turn (read as a regular file of bounded size, dated by its modification time when
  /// its log prints none) into one report whose context says what was imported; the first failure ends it.
  [[nodiscard]] Expected<Report> import_files(const std::vector<std::string>& paths,
                                              const std::vector<std::string>& sets) const;

private:
  /// inspect_text and import_text of a file or a text, read a pass at a time (never held whole).
  [[nodiscard]] Expected<LogReading> inspect_input(detail::LogInput& input, const std::string& origin,
                                                   const std::vector<std::string>& sets) const;
  [[nodiscard]] Expected<std::vector<ResultRow>> import_input(detail::LogInput& input, const std::string& origin,
                                                              const std::vector<std::string>& sets,
                                                              std::optional<std::int64_t> file_time) const;

  const PluginRegistry& registry_;
  const Logger& logger_;
  HostComm& comm_;
  std::vector<SearchPath> config_paths_;
};

}  // namespace dgx
