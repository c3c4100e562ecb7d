// Times as dgxhost writes and reads them: ISO 8601 in UTC with a Z ("2026-12-01T21:31:27Z"), the context's time,
// log lines, the store's runs and --since.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dgx {

/// Seconds since the epoch as "2026-12-01T21:31:27Z".
std::string iso_utc(std::int64_t seconds);

/// The current time as iso_utc.
std::string iso_utc_now();

/// "2026-12-01T21:31:27Z" (the Z may be left out) or a date "2026-12-01" as seconds since the epoch; nullopt for
/// anything else (another zone, a time without seconds, trailing text).
std::optional<std::int64_t> parse_iso_utc(std::string_view text);

}  // namespace dgx
