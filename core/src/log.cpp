#include "dgx/core/log.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

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

}  // namespace

void Logger::log(dgx_log_level level, std::string_view source, std::string_view message) const {
  if (level < threshold_) return;
  if (quiet_rank_ && level < DGX_LOG_ERROR) return;
  end_progress();
  std::string line = "dgxhost";
  if (!rank_label_.empty()) line += " " + rank_label_;
  if (!source.empty()) line += " [" + std::string(source) + "]";
  line += ": ";
  line += level_prefix(level);
  line += message;
  line += '\n';
  std::fputs(line.c_str(), stderr);
}

void Logger::progress(std::string_view source, double fraction, std::string_view what) const {
  if (quiet_rank_ || threshold_ > DGX_LOG_INFO || isatty(STDERR_FILENO) == 0) return;
  const int percent = static_cast<int>(std::lround(std::clamp(fraction, 0.0, 1.0) * 100.0));
  std::fprintf(stderr, "\r\033[K[%.*s] %.*s %d%%", static_cast<int>(source.size()), source.data(),
               static_cast<int>(what.size()), what.data(), percent);
  std::fflush(stderr);
  progress_shown_ = true;
}

void Logger::end_progress() const {
  if (!progress_shown_) return;
  std::fputs("\r\033[K", stderr);
  progress_shown_ = false;
}

}  // namespace dgx
