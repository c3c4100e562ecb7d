#include "dgx/core/support/log.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string>

#include "dgx/core/support/utc_time.hpp"

namespace dgx {

namespace {

const char* level_prefix(dgx_log_level level) {
  switch (level) {
  case DGX_LOG_DEBUG: return "debug: ";
  case DGX_LOG_WARNING: return "warning: ";
  case DGX_LOG_ERROR: return "error: ";
  default: return "";
  }
}

// "2026-12-01T00:50:00Z ": log files are read after the fact, when the time of a line matters.
std::string utc_stamp() { return iso_utc_now() + " "; }

}  // namespace

void Logger::info_to_file(std::string_view message) const {
  if (tee_ == nullptr) {
    return;
  }
  std::string line = "dgxhost";
  if (!rank_label_.empty()) {
    line += " " + rank_label_;
  }
  line += ": ";
  line += message;
  line += '\n';
  write_tee(line);
}

void Logger::write_tee(const std::string& line) const {
  std::fputs((utc_stamp() + line).c_str(), tee_);
  std::fflush(tee_);  // a crash or SIGKILL must not take the last lines with it
}

void Logger::log(dgx_log_level level, std::string_view source, std::string_view message) const {
  const bool to_file = tee_ != nullptr && (level >= DGX_LOG_INFO || level >= threshold_);
  const bool to_stderr = level >= threshold_ && !(quiet_rank_ && level < DGX_LOG_ERROR);
  if (!to_file && !to_stderr) {
    return;
  }
  std::string line = "dgxhost";
  if (!rank_label_.empty()) {
    line += " " + rank_label_;
  }
  if (!source.empty()) {
    line += " [" + std::string(source) + "]";
  }
  line += ": ";
  line += level_prefix(level);
  line += message;
  line += '\n';
  if (to_file) {
    write_tee(line);
  }
  if (!to_stderr) {
    return;
  }
  end_progress();
  std::fputs(line.c_str(), stderr);
}

void Logger::progress(std::string_view source, double fraction, std::string_view what) const {
  if (quiet_rank_ || threshold_ > DGX_LOG_INFO || isatty(STDERR_FILENO) == 0) {
    return;
  }
  const int percent = static_cast<int>(std::lround(std::clamp(fraction, 0.0, 1.0) * 100.0));
  std::fprintf(stderr, "\r\033[K[%.*s] %.*s %d%%", static_cast<int>(source.size()), source.data(),
               static_cast<int>(what.size()), what.data(), percent);
  std::fflush(stderr);
  progress_shown_ = true;
}

void Logger::end_progress() const {
  if (!progress_shown_) {
    return;
  }
  std::fputs("\r\033[K", stderr);
  progress_shown_ = false;
}

}  // namespace dgx
