#include <doctest/doctest.h>

#include "dgx/core/text.hpp"

using namespace dgx;

TEST_CASE("edit distance counts single-character edits") {
  CHECK(text::edit_distance("spin", "spin") == 0);
  CHECK(text::edit_distance("spin", "spni") == 2);
  CHECK(text::edit_distance("", "abc") == 3);
  CHECK(text::edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("close matches prefer small distances and substrings") {
  const std::vector<std::string> names{"llama70b", "llama8b", "llama405b", "spin", "gemm"};
  CHECK(text::close_matches("lama70b", names).front() == "llama70b");
  CHECK(text::close_matches("spni", names) == std::vector<std::string>{"spin"});
  CHECK(text::close_matches("xyzzy", names).empty());
  const auto llamas = text::close_matches("llama", names);
  CHECK(llamas.size() == 3);  // a prefix of several
}

TEST_CASE("did_you_mean lists candidates in readable English") {
  CHECK(text::did_you_mean({}).empty());
  CHECK(text::did_you_mean({"a"}) == "did you mean 'a'?");
  CHECK(text::did_you_mean({"a", "b", "c"}) == "did you mean 'a', 'b' or 'c'?");
}

TEST_CASE("split, join and trim") {
  CHECK(text::split("a,b,,c", ',') == std::vector<std::string>{"a", "b", "", "c"});
  CHECK(text::join({"a", "b"}, ", ") == "a, b");
  CHECK(text::trim("  x y \n") == "x y");
}

TEST_CASE("numbers are formatted with significant digits") {
  CHECK(text::format_number(2.0013, 4) == "2.001");
  CHECK(text::format_number(1234.6, 4) == "1235");
  CHECK(text::format_number(0.00123456, 3) == "0.00123");
  CHECK(text::format_number(0, 4) == "0");
  CHECK(text::format_number(1e20, 3) == "1.00e+20");
}
