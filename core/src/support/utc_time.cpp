#include "dgx/core/support/utc_time.hpp"

#include <array>
#include <ctime>

namespace dgx {

std::string iso_utc(std::int64_t seconds) {
  const auto t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::array<char, 32> buffer{};
  const std::size_t n = std::strftime(buffer.data(), buffer.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return {buffer.data(), n};
}

std::string iso_utc_now() { return iso_utc(static_cast<std::int64_t>(std::time(nullptr))); }

std::optional<std::int64_t> parse_iso_utc(std::string_view text) {
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

}  // namespace dgx
