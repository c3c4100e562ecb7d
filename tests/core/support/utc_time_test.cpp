#include <doctest/doctest.h>

#include "dgx/core/support/utc_time.hpp"

using namespace dgx;

TEST_CASE("UTC times written and read back as the context, the store and --since use them") {
  CHECK(iso_utc(1796000523) == "2026-11-30T01:02:03Z");
  CHECK(parse_iso_utc("2026-11-30T01:02:03Z").value() == 1796000523);
  CHECK(parse_iso_utc("2026-11-30T01:02:03").value() == 1796000523);
  CHECK(parse_iso_utc("2026-11-30").value() == 1795996800);
  CHECK(parse_iso_utc(iso_utc_now()).has_value());
  CHECK_FALSE(parse_iso_utc("30/11/2026").has_value());
  CHECK_FALSE(parse_iso_utc("2026-11-30T01:02:03+05:00").has_value());
  CHECK_FALSE(parse_iso_utc("2026-11-30T01:02").has_value());
  CHECK_FALSE(parse_iso_utc("").has_value());
}
