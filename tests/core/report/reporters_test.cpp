// What every reporter shows of a report.
#include <doctest/doctest.h>

#include "dgx/core/report/reporters.hpp"
#include "dgx/json/json.hpp"
#include "sample_report.hpp"

using namespace dgx;
using dgx::testing::sample_report;

TEST_CASE("a failed run's report says so") {
  Report report = sample_report();
  report.exit_code = 5;
  report.error = "check failed";
  const json::Value doc = json::parse(render_json(report));
  CHECK_FALSE(doc["status"]["ok"].as_bool());
  CHECK(doc["status"]["exit_code"].as_int() == 5);
  CHECK(doc["status"]["error"].as_string() == "check failed");
  CHECK(render_table(report).find("run failed: check failed") != std::string::npos);
}
