// Where the store is when the command line does not say (store.hpp), and the times --since takes.
#include <array>
#include <charconv>
#include <cstdlib>
#include <ctime>

#include "dgx/core/run/journal.hpp"
#include "dgx/core/store/store.hpp"
#include "dgx/core/support/utc_time.hpp"

namespace dgx {

std::optional<std::string> store_from_environment() {
  const char* env = std::getenv("DGX_STORE");
  if (env == nullptr || *env == '\0' || std::string_view(env) == "off") {
    return std::nullopt;
  }
  return std::string(env);
}

std::string default_store_location() {
  if (auto env = store_from_environment()) {
    return *env;
  }
  const std::filesystem::path root = runs_root();
  return root.empty() ? std::string() : (root / "dgx-store.sqlite").string();
}

Expected<std::int64_t> parse_since(const std::string& text, std::int64_t now) {
  if (auto absolute = parse_iso_utc(text)) {
    return *absolute;
  }
  std::int64_t n = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), n);
  if (r.ec == std::errc() && n >= 0 && r.ptr + 1 == text.data() + text.size()) {
    const char unit = *r.ptr;
    const std::int64_t seconds = unit == 'w' ? 604800 : unit == 'd' ? 86400 : unit == 'h' ? 3600 : unit == 'm' ? 60 : 0;
    if (seconds > 0) {
      return now - n * seconds;
    }
  }
  return Failure{ExitCode::usage, "--since " + text +
                                      ": expected a date (2026-11-01), a UTC time (2026-11-01T12:00:00Z) or a span "
                                      "back from now (30d, 12h, 2w, 90m)"};
}

}  // namespace dgx
