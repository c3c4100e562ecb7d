// The numbers of the LLM plugins' notes, as the SDK's text toolkit (<dgx/sdk/text.hpp>) formats them for them; the
// toolkit's own tests are tests/sdk/text_test.cpp.
#include <dgx/sdk/text.hpp>

#include <doctest/doctest.h>

using namespace dgx::sdk::text;

TEST_CASE("numbers in notes are rounded to what a projection can claim") {
  CHECK(fixed(3.14159, 2) == "3.14");
  CHECK(grouped(1234567) == "1,234,567");
  CHECK(grouped(-1000) == "-1,000");
  CHECK(grouped(999) == "999");
  CHECK(gib(80.0 * 1024 * 1024 * 1024) == "80.0 GiB");
  CHECK(usd(870) == "$870");
  CHECK(usd(12.5) == "$12.50");
  CHECK(usd(12345) == "$12.3k");
  CHECK(usd(4.56e6) == "$4.56M");
  CHECK(usd(823456) == "$823k");
  CHECK(usd(1.23e9) == "$1.23B");
  CHECK(si_count(70.55e9) == "70.5B");
  CHECK(si_count(1e12) == "1.00T");
  CHECK(si_count(68200) == "68.2k");
  CHECK(duration(0.85) == "850 ms");
  CHECK(duration(0.0052) == "5.2 ms");
  CHECK(duration(12.34) == "12.3 s");
  CHECK(duration(2.5) == "2.50 s");
}
