// Diagnostics go to stderr, never stdout: with --format json, stdout holds only the JSON document.
#pragma once

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

private:
  dgx_log_level threshold_ = DGX_LOG_INFO;
  bool quiet_rank_ = false;
  mutable bool progress_shown_ = false;
  std::string rank_label_;
};

}  // namespace dgx
