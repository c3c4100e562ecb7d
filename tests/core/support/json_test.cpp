#include <doctest/doctest.h>

#include <cmath>

#include "dgx/json/json.hpp"
#include "dgx/json/nesting.hpp"

using namespace dgx;

TEST_CASE("objects keep insertion order and set replaces in place") {
  json::Object o;
  o.set("schema", "x");
  o.set("b", 1);
  o.set("a", 2);
  o.set("b", 3);
  CHECK(json::write(o, 0) == R"({"schema":"x","b":3,"a":2})");
}

TEST_CASE("write then parse gives the same value") {
  json::Object inner;
  inner.set("value", 0.1);
  inner.set("unit", "s");
  json::Object o;
  o.set("metrics", inner);
  o.set("list", json::Array{1, 2.5, "three", true, nullptr});
  o.set("text", "quote \" backslash \\ newline \n tab \t ctrl \x01");
  o.set("big", std::int64_t{9007199254740993});
  const json::Value parsed = json::parse(json::write(o));
  CHECK(parsed == json::Value(o));
  CHECK(parsed["metrics"]["value"].as_number() == 0.1);  // shortest round-trip form
  CHECK(parsed["big"].as_int() == 9007199254740993);
}

TEST_CASE("non-finite numbers are written as null") {
  CHECK(json::write(json::Value(NAN), 0) == "null");
  CHECK(json::write(json::Value(INFINITY), 0) == "null");
}

TEST_CASE("arrays of scalars stay on one line when pretty-printed") {
  json::Object o;
  o.set("samples", json::Array{1, 2, 3});
  CHECK(json::write(o) == "{\n  \"samples\": [1, 2, 3]\n}");
}

TEST_CASE("parse errors name line and column") {
  // nlohmann stops after the token it could not use: the line break after "tru" on line 2.
  CHECK_THROWS_WITH(json::parse("{\n  \"a\": tru\n}"), doctest::Contains("JSON parse error at 2:11"));
  CHECK_THROWS_WITH(json::parse("[1, 2"), doctest::Contains("unexpected end of input"));
  CHECK_THROWS_WITH(json::parse("{} x"), doctest::Contains("expected end of input"));
}

TEST_CASE("integers and floats stay apart through writing and reading") {
  CHECK(json::write(json::Value(2.0), 0) == "2.0");
  CHECK(json::write(json::Value(2), 0) == "2");
  CHECK(json::parse(json::write(json::Value(2.0), 0)).is_double());
  CHECK(json::write(json::Value(2.5e-05), 0) == "2.5e-05");
  CHECK(json::parse("18446744073709551615").is_double());  // beyond int64
}

TEST_CASE("invalid UTF-8 is replaced, not a failed report") {
  CHECK(json::write(json::Value("a\xff"), 0) == "\"a\xef\xbf\xbd\"");
}

TEST_CASE("unicode escapes decode to UTF-8") {
  CHECK(json::parse(R"("\u00e9\u20ac")").as_string() == "\xc3\xa9\xe2\x82\xac");
}

TEST_CASE("missing keys throw naming the key") {
  json::Object o;
  CHECK_THROWS_WITH((void)o.at("nope"), doctest::Contains("'nope'"));
}

TEST_CASE("a document nested deeper than every reader allows is refused with its line, not a stack overflow") {
  const auto nested = [](std::size_t depth, const std::string& open, const std::string& close) {
    std::string text;
    for (std::size_t i = 0; i < depth; ++i) {
      text += open;
    }
    for (std::size_t i = 0; i < depth; ++i) {
      text += close;
    }
    return text;
  };
  CHECK(json::parse(nested(kMaxNesting, "[", "]")).is_array());  // the limit itself is read
  CHECK_THROWS_WITH(json::parse(nested(kMaxNesting + 1, "[", "]")),
                    "line 1: arrays or objects nest more than 32 deep; dgxhost refuses documents nested this deeply");
  CHECK_THROWS_WITH(json::parse("{\"a\": \"[[[[\",\n\"b\": " + nested(100000, "{\"k\":", "}") + "}"),
                    doctest::Contains("line 2: arrays or objects nest more than 32 deep"));
  CHECK_THROWS_WITH(json::parse(nested(100000, "[", "]")), doctest::Contains("nest more than 32 deep"));
}
