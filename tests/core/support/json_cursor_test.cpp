#include <doctest/doctest.h>

#include <cmath>

#include "dgx/core/support/json_cursor.hpp"

using namespace dgx;

TEST_CASE("a value of the wrong type names its JSON path, what was expected and what was found") {
  const json::Value doc = json::parse(R"({"results": [{"metrics": {"time.median": {"value": "fast"}}}], "n": null})");
  const json::Cursor root(doc);
  const json::Cursor value = root["results"].elements()[0]["metrics"]["time.median"]["value"];
  CHECK(value.path() == R"($.results[0].metrics["time.median"].value)");
  CHECK_THROWS_WITH_AS(
      (void)value.number_or_null(),
      R"($.results[0].metrics["time.median"].value: expected a number or null, found a string ("fast"))",
      json::ReadError);
  CHECK_THROWS_WITH_AS((void)root["results"].string(), "$.results: expected a string, found an array", json::ReadError);
  CHECK_THROWS_WITH_AS((void)root["missing"], R"($: expected a member "missing", found none)", json::ReadError);
  CHECK_THROWS_WITH_AS((void)root["results"][""], "$.results: expected an object, found an array", json::ReadError);
  CHECK(std::isnan(root["n"].number_or_null()));
  CHECK_FALSE(root.find("absent").has_value());
  CHECK(root.string_or("absent", "x") == "x");
}

TEST_CASE("an array of numbers is read whole, and its first non-number is named") {
  const json::Value good = json::parse("[1, 2.5, -3e-3]");
  CHECK(json::Cursor(good).numbers() == std::vector<double>{1, 2.5, -3e-3});
  const json::Value bad = json::parse(R"(["a", null, {}])");
  CHECK_THROWS_WITH_AS((void)json::Cursor(bad, "$.sample_times").numbers(),
                       R"($.sample_times[0]: expected a number, found a string ("a"))", json::ReadError);
}

TEST_CASE("what a value is, as messages quote it: escaped and cut short") {
  CHECK(json::describe(json::Value()) == "null");
  CHECK(json::describe(json::Value(3)) == "an integer (3)");
  CHECK(json::describe(json::Value("a\x1b[31m")) == R"(a string ("a\u001b[31m"))");
  CHECK(json::describe(json::Value(std::string(100, 'x'))).size() < 60);
  CHECK(json::describe(json::Array{}) == "an empty array");
  CHECK(json::describe(json::Object{}) == "an empty object");
}
