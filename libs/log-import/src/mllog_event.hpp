// Private to log-import/: one MLLOG event, the line format MLPerf Training (mlcommons/logging) and MLPerf Inference's
// loadgen (mlperf_log_detail.txt) share: ":::MLLOG " and a JSON object {key, value, time_ms, metadata, ...}, after
// whatever a launcher printed in front (an srun rank "0: ", a container's prefix).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "dgx/json/json.hpp"
#include "dgx/log_import/log_text.hpp"

namespace dgx::logs {

inline constexpr std::string_view kMllogPrefix = ":::MLLOG ";

// Only loadgen writes its events in this namespace; an MLPerf Training log's namespace is "".
inline constexpr std::string_view kLoadgenNamespace = "\"mlperf::logging\"";

struct MllogEvent {
  std::string key;
  json::Value value;     // null when absent
  json::Value metadata;  // null when absent
  std::optional<double> time_ms;
};

inline bool has_mllog_event(std::string_view line) { return line.find(kMllogPrefix) != std::string_view::npos; }

/// The event on a line that has_mllog_event; a usage failure naming the line when it is not JSON with a key, or is
/// cut off (`last`: the file's last line, without its line break).
Expected<MllogEvent> read_mllog_event(const Line& line, bool last, const std::string& origin);

}  // namespace dgx::logs
