// UTC timestamps as results and logs write them ("2026-12-01T21:31:27Z"): the one home of the format, shared by the
// host (results, the store's history) and the plugins that date what they read (an imported log's run).
#pragma once

#include <array>
#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>

namespace dgx::sdk {

/// Seconds since the epoch as "2026-12-01T21:31:27Z".
inline std::string iso_utc(std::int64_t seconds) {
  const auto t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::array<char, 32> buffer{};
  const std::size_t n = std::strftime(buffer.data(), buffer.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return {buffer.data(), n};
}

/// The current time as iso_utc.
inline std::string iso_utc_now() { return iso_utc(static_cast<std::int64_t>(std::time(nullptr))); }

/// "2026-12-01T21:31:27Z" (the Z may be left out) or a date "2026-12-01" as seconds since the epoch; nullopt for
/// anything else (another zone, a time without seconds, trailing text).
inline std::optional<std::int64_t> parse_iso_utc(std::string_view text) {
  const std::string s(text);
  std::tm tm{};
  const char* end = strptime(s.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (end == nullptr) {
    tm = {};
    end = strptime(s.c_str(), "%Y-%m-%d", &tm);
    if (end == nullptr) {
      return std::nullopt;
    }
  }
  if (*end == 'Z') {
    ++end;
  }
  if (*end != '\0') {
    return std::nullopt;
  }
  return static_cast<std::int64_t>(timegm(&tm));
}

}  // namespace dgx::sdk
