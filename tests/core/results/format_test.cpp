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

TEST_CASE("junit and prometheus are formats by name, and .xml and .prom their files") {
  CHECK(format_from_name("junit") == Format::junit);
  CHECK(format_from_name("prometheus") == Format::prometheus);
  CHECK(format_from_path("ci/report.xml") == Format::junit);
  CHECK(format_from_path("/var/lib/node_exporter/textfile/dgx.prom") == Format::prometheus);
  CHECK_FALSE(format_from_path("r.junit"));  // a format's name, not an extension dgxhost writes
  CHECK_FALSE(format_from_path("r.prometheus"));
}
