#include "dgx/llm/serve_calibration.hpp"

#include <doctest/doctest.h>

using namespace dgx::llm;

TEST_CASE("the serving calibration set is embedded and projected within the issue's targets") {
  const auto rows = load_serve_calibration();
  REQUIRE_MESSAGE(rows.has_value(), (rows ? "" : rows.error().message));
  CHECK(rows->size() == 7);
  const auto outcomes = run_serve_calibration(*rows);
  const auto stats = serve_error_stats(outcomes);
  const ErrorStats& all = stats.back();
  CHECK(all.section == "all");
  CHECK(all.failed == 0);
  CHECK(all.mean_abs <= 0.10);
  CHECK(all.max_abs <= 0.20);
}

TEST_CASE("a calibration row names its keys when one is wrong") {
  const auto rows = parse_serve_calibration("[[row]]\nsection = \"x\"\nlabel = \"x\"\nmodel = \"m\"\nsystem = \"s\"\n"
                                            "tp = 1\nprecision = \"fp16\"\n",
                                            "bad.toml");
  REQUIRE_FALSE(rows.has_value());
  CHECK(rows.error().message ==
        "bad.toml:7:13: key 'row[0].precision' is \"fp16\", expected one of bf16, fp8, mxfp8, nvfp4");
}
