// A run folder and its journal: measured runs take hours, and their results are the product. Each finished case
// is appended to <run folder>/journal.jsonl (JSON Lines) and flushed to disk before the next case starts, so a
// crash, SIGKILL or Ctrl-C loses at most the case in flight; `dgxhost --resume DIR` runs only the cases the
// journal lacks and reports the rows a full run would have. The folder also receives the final results.json.
//
// journal.jsonl: line 1 is the header {"schema": "dgx.journal/1", "argv": [...], "workload": "plugin:workload",
// "mode": "measure", "ranks": {"world_size": N, "transport": "local" | "mpi"}, "config": {every resolved key:
// value}}; then one line per finished case {"case": index, "row": {...}}, the row
// in a lossless form (row_to_journal). A last line cut short by a crash is ignored.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dgx/core/results/document.hpp"
#include "dgx/core/support/expected.hpp"
#include "dgx/core/support/files.hpp"
#include "dgx/core/support/json_cursor.hpp"
#include "dgx/json/json.hpp"

namespace dgx {

inline constexpr const char* kJournalSchema = "dgx.journal/1";
inline constexpr const char* kJournalFile = "journal.jsonl";
inline constexpr const char* kRunResultsFile = "results.json";
inline constexpr const char* kRunLogFile = "run.log";

/// Where run folders go: $DGX_RUNS_DIR, default ./dgx-runs; empty when DGX_RUNS_DIR=off.
std::filesystem::path runs_root();

/// The folder a new measured run gets: $DGX_RUNS_DIR (default ./dgx-runs) / <UTC yyyymmddThhmmssZ>-<workload>,
/// with -2, -3, ... appended when taken. Empty when DGX_RUNS_DIR=off.
std::filesystem::path default_run_dir(const std::string& workload);

/// A row as the journal keeps it: everything ResultRow holds, so a resumed run reports it unchanged.
json::Value row_to_journal(const ResultRow& row);
/// The inverse of row_to_journal; throws json::ReadError naming the member of a malformed row by its path.
ResultRow row_from_journal(const json::Cursor& value);

class Journal {
public:
  /// Creates `dir` (it must not hold a journal yet) and writes the header. A usage failure naming the folder.
  static Expected<Journal> create(const std::filesystem::path& dir, const json::Object& header);
  /// Opens the journal in `dir` to append to it; reads its header and finished cases.
  static Expected<Journal> resume(const std::filesystem::path& dir);
  /// Only the header, for --resume DIR without a command line.
  static Expected<json::Object> read_header(const std::filesystem::path& dir);

  [[nodiscard]] const std::filesystem::path& dir() const { return dir_; }
  [[nodiscard]] std::filesystem::path file() const { return dir_ / kJournalFile; }
  [[nodiscard]] const json::Object& header() const { return header_; }
  [[nodiscard]] const std::map<std::uint32_t, ResultRow>& finished() const { return finished_; }

  /// Appends case `index` and flushes it to disk (fdatasync); the OS's reason when it cannot.
  std::optional<std::string> append(std::uint32_t index, const ResultRow& row);

private:
  Journal(std::filesystem::path dir, UniqueFd fd) : dir_(std::move(dir)), fd_(std::move(fd)) {}
  std::filesystem::path dir_;
  UniqueFd fd_;
  json::Object header_;
  std::map<std::uint32_t, ResultRow> finished_;
};

/// The first difference between a journal's header and this run's: its ranks (world size and transport: a
/// 2-rank run's rows do not mix with one rank's), then workload, mode and config ("config key spin.us: the
/// journal's is 100, this run's 200"); empty when the run continues the journal's.
std::string resume_mismatch(const json::Object& header, const json::Object& now);

/// The first difference in workload, mode or a config key between two run descriptions {"workload", "mode",
/// "config"}, worded with their names ("config key k: rank 0's is 1, this rank's 2"); empty when they agree.
std::string run_difference(const json::Object& a, const json::Object& b, const std::string& a_name,
                           const std::string& b_name);

}  // namespace dgx
