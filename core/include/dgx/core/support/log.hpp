// Diagnostics go to stderr, never stdout: with --format json, stdout holds only the JSON document.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include <dgx/plugin.h>

namespace dgx {

class Logger {
public:
  /// Messages below `threshold` are dropped; `quiet_rank` keeps ranks other than 0 silent except for errors.
  void configure(dgx_log_level threshold, bool quiet_rank) {
    threshold_ = threshold;
    quiet_rank_ = quiet_rank;
  }
  /// With several ranks every line names its rank, e.g. "rank 3".
  void set_rank_label(std::string label) { rank_label_ = std::move(label); }
  void log(dgx_log_level level, std::string_view source, std::string_view message) const;
  void debug(std::string_view message) const { log(DGX_LOG_DEBUG, {}, message); }
  void info(std::string_view message) const { log(DGX_LOG_INFO, {}, message); }
  void warn(std::string_view message) const { log(DGX_LOG_WARNING, {}, message); }
  void error(std::string_view message) const { log(DGX_LOG_ERROR, {}, message); }
  /// A transient progress line, shown only on a terminal.
  void progress(std::string_view source, double fraction, std::string_view what) const;
  /// Ends a progress line, if one is shown.
  void end_progress() const;

  /// Also appends every message of level info and above (and debug ones that pass the threshold) to `file`,
  /// each line stamped with the UTC time and flushed, whatever --quiet says for stderr; nullptr stops. The run
  /// folder's run.log (run_folder.hpp). The logger does not own the file.
  void tee(std::FILE* file) const { tee_ = file; }
  /// An info message for the tee file only (what a terminal sees as a progress bar instead).
  void info_to_file(std::string_view message) const;

private:
  void write_tee(const std::string& line) const;

  dgx_log_level threshold_ = DGX_LOG_INFO;
  bool quiet_rank_ = false;
  mutable bool progress_shown_ = false;
  mutable std::FILE* tee_ = nullptr;
  std::string rank_label_;
};

}  // namespace dgx
