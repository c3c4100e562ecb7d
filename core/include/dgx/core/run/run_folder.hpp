// The run folder of a measured run on rank 0 (journal.hpp): where it is, skipping what a resumed journal holds,
// recording each finished case, a progress line per case when stderr is not a terminal, the run's log (every
// message dgxhost and the plugin print, time-stamped, whatever --quiet says) and the final results.
#pragma once

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>

#include "dgx/core/config/cli.hpp"
#include "dgx/core/distributed/comm.hpp"
#include "dgx/core/measure/runner.hpp"
#include "dgx/core/plugin/plugin_registry.hpp"
#include "dgx/core/run/journal.hpp"
#include "dgx/core/run/time_left.hpp"
#include "dgx/core/support/log.hpp"

namespace dgx {

/// One line per finished case, with the time elapsed and an estimate of the time left: on stderr when it is not
/// a terminal (batch jobs, `2> log`; a terminal has the progress bar), and in the run log.
class ProgressLine {
public:
  explicit ProgressLine(const Logger& logger) : logger_(logger) {}
  /// Case `index` of `count` finished with `row`; `done` cases of the run are finished in all (a resumed run's
  /// earlier ones included).
  void finished(std::uint32_t index, std::uint32_t count, std::size_t done, const ResultRow& row);

private:
  const Logger& logger_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  double last_ = 0;              // seconds after start_ when the previous case finished
  TimeLeft time_left_;           // the cases finished here, weighted by the bytes they move
  std::uint32_t done_here_ = 0;  // cases finished by this process (not restored from a journal)
};

/// A measured run without a run folder (DGX_RUNS_DIR=off, or none could be created): progress lines only.
class ProgressLog final : public CaseLog {
public:
  explicit ProgressLog(const Logger& logger) : line_(logger) {}
  [[nodiscard]] const ResultRow* finished(std::uint32_t /*index*/) const override { return nullptr; }
  void record(std::uint32_t index, std::uint32_t count, const ResultRow& row) override {
    line_.finished(index, count, ++done_, row);
  }

private:
  ProgressLine line_;
  std::size_t done_ = 0;
};

class RunFolder final : public CaseLog {
public:
  /// The folder for this run: --resume DIR (its journal must match this run's configuration), --run-dir DIR, or
  /// the default folder; null when there is none (DGX_RUNS_DIR=off, or the default cannot be created: a warning).
  static Expected<std::unique_ptr<RunFolder>> open(const CliOptions& options, const Target& target,
                                                   const ResolvedConfig& config, const HostComm& comm,
                                                   const Logger& logger);

  [[nodiscard]] const ResultRow* finished(std::uint32_t index) const override;
  void record(std::uint32_t index, std::uint32_t count, const ResultRow& row) override;

  [[nodiscard]] const std::filesystem::path& dir() const { return journal_.dir(); }
  /// Writes results.json into the folder; the reason when it cannot.
  [[nodiscard]] std::optional<std::string> write_results(const Report& report) const;

  /// Opens the folder's run.log (appending, for a resumed run) and tees the logger into it until destroyed.
  RunFolder(Journal journal, const Logger& logger);
  ~RunFolder() override;
  RunFolder(const RunFolder&) = delete;
  RunFolder& operator=(const RunFolder&) = delete;

private:
  struct CloseFile {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };

  Journal journal_;
  const Logger& logger_;
  std::unique_ptr<std::FILE, CloseFile> log_;
  ProgressLine progress_{logger_};
  bool append_failed_ = false;
};

/// The header a journal of this run starts with; what --resume compares.
json::Object journal_header(const CliOptions& options, const Target& target, const ResolvedConfig& config,
                            const HostComm& comm);

/// The command line a bare `--resume DIR` repeats: the journal's, with --resume DIR, without --run-dir and
/// without the options in `replaced` (which take a value, except --quiet/-q), whose new values follow.
Expected<std::vector<std::string>> resumed_argv(const std::string& dir, const std::vector<std::string>& replaced);

}  // namespace dgx
