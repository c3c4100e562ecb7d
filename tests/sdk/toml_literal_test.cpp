#include <doctest/doctest.h>

#include <cstdint>

#include <dgx/sdk/toml_literal.hpp>

using dgx::sdk::toml_literal;

TEST_CASE("strings become quoted TOML strings with escapes") {
  CHECK(toml_literal("bf16") == "\"bf16\"");
  CHECK(toml_literal(std::string("a\"b\\c\nd")) == "\"a\\\"b\\\\c\\nd\"");
  CHECK(toml_literal(std::string(1, '\x01')) == "\"\\u0001\"");
}

TEST_CASE("numbers keep their TOML type: floats always have a point or exponent") {
  CHECK(toml_literal(std::int64_t{2000}) == "2000");
  CHECK(toml_literal(2.0) == "2.0");
  CHECK(toml_literal(0.25) == "0.25");
  CHECK(toml_literal(1e12) == "1e+12");
  CHECK(toml_literal(true) == "true");
}

TEST_CASE("lists are TOML arrays") {
  CHECK(toml_literal(std::vector<std::int64_t>{8, 16}) == "[8, 16]");
  CHECK(toml_literal(std::vector<std::string>{"bf16", "fp8"}) == "[\"bf16\", \"fp8\"]");
  CHECK(toml_literal(std::vector<double>{}) == "[]");
}
