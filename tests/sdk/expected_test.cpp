// The one Expected of the tree: a value or an error, and a wrong access that names the error.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include <dgx/sdk/expected.hpp>

namespace {

struct Problem {
  std::string message;
  int code = 0;
};

dgx::sdk::Expected<int, Problem> parse_positive(int value) {
  if (value <= 0) {
    return Problem{"expected a positive number, got " + std::to_string(value), 2};
  }
  return value;
}

}  // namespace

TEST_CASE("Expected holds either the value or the error, and says which") {
  const auto good = parse_positive(3);
  REQUIRE(good.has_value());
  CHECK(static_cast<bool>(good));
  CHECK(good.value() == 3);
  CHECK(*good == 3);

  const auto bad = parse_positive(-1);
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().message == "expected a positive number, got -1");
  CHECK(bad.error().code == 2);
}

TEST_CASE("reading the value of an Expected that holds an error throws BadExpectedAccess naming the error") {
  const auto bad = parse_positive(0);
  CHECK_THROWS_WITH_AS((void)bad.value(), "Expected holds an error: expected a positive number, got 0",
                       dgx::sdk::BadExpectedAccess);
  CHECK_THROWS_AS((void)*bad, dgx::sdk::BadExpectedAccess);
}

TEST_CASE("Expected moves its value out, so move-only values work") {
  dgx::sdk::Expected<std::unique_ptr<int>, Problem> owned(std::make_unique<int>(7));
  std::unique_ptr<int> taken = std::move(owned).value();
  REQUIRE(taken != nullptr);
  CHECK(*taken == 7);
}
