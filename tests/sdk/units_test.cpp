// The documented list of metric units, with the prefixes each one takes.
#include <doctest/doctest.h>

#include <dgx/sdk/units.hpp>

using dgx::sdk::is_known_unit;

TEST_CASE("the base units are known") {
  for (const char* unit :
       {"s", "B", "B/s", "FLOP", "FLOP/s", "tokens/s", "USD", "%", "1", "count", "h", "days", "GPU-h"}) {
    CHECK_MESSAGE(is_known_unit(unit), unit);
  }
}

TEST_CASE("prefixed forms follow each unit's rule") {
  for (const char* unit :
       {"ms", "us", "\u00b5s", "ns", "GB/s", "KB", "kB", "MiB", "GiB/s", "TFLOP/s", "PFLOP", "Mtokens/s"}) {
    CHECK_MESSAGE(is_known_unit(unit), unit);
  }
  for (const char* unit : {"ks", "mB", "KiFLOP", "kUSD", "k%", "Kcount", "KFLOP/s", "Gs"}) {
    CHECK_FALSE_MESSAGE(is_known_unit(unit), unit);
  }
}

TEST_CASE("anything else is not a unit") {
  for (const char* unit : {"", "parsecs", "sec", "GB/sec", "tflops", "1/s", "b", "Bytes", " s"}) {
    CHECK_FALSE_MESSAGE(is_known_unit(unit), unit);
  }
  CHECK(dgx::sdk::known_units().find("s, B, B/s, FLOP, FLOP/s, tokens/s, USD, %, 1, count, h, days, GPU-h") == 0);
}

TEST_CASE("every unit the bundled plugins and the host report is known") {
  // From grep over plugins/ and core/ (metric and add_metric calls).
  for (const char* unit :
       {"s", "B", "count", "%", "TFLOP/s", "GB/s", "tokens/s", "h", "days", "GPU-h", "FLOP", "USD"}) {
    CHECK_MESSAGE(is_known_unit(unit), unit);
  }
}
