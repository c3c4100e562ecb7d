// The formats of reports, by name and by file extension.
#include <doctest/doctest.h>

#include "dgx/core/results/format.hpp"

using namespace dgx;

TEST_CASE("formats from names and file extensions") {
  CHECK(format_from_name("md") == Format::markdown);
  CHECK_FALSE(format_from_name("xml"));
  CHECK(format_from_path("out/results.json") == Format::json);
  CHECK(format_from_path("r.csv") == Format::csv);
  CHECK_FALSE(format_from_path("results"));
}
