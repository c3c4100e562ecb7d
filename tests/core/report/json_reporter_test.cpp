// The JSON reporter: the dgx.results/1 document.
#include <doctest/doctest.h>

#include "dgx/core/report/reporters.hpp"
#include "dgx/json/json.hpp"
#include "sample_report.hpp"

using namespace dgx;
using dgx::testing::sample_report;

TEST_CASE("JSON follows dgx.results/1") {
  const json::Value doc = json::parse(render_json(sample_report()));
  CHECK(doc["schema"].as_string() == "dgx.results/1");
  CHECK(doc["status"]["ok"].as_bool());
  const json::Value& row = doc["results"][0];
  CHECK(row["mode"].as_string() == "measured");
  CHECK(row["metrics"]["time.median"]["value"].as_number() == 2.5e-5);
  CHECK(row["metrics"]["time.median"]["unit"].as_string() == "s");
  CHECK(row["metrics"]["internal"]["value"].as_number() == 1.0);  // hidden metrics are in JSON
  CHECK(row["info"]["timing"].as_string() == "device events");
  CHECK(row["sample_times"].as_array().size() == 2);
  CHECK(doc["results"][2]["table"].as_string() == "explore");
  CHECK(doc["notes"][0]["placement"].as_string() == "before");
}
