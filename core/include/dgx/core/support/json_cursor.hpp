// Reading a JSON document that dgxhost did not necessarily write (a --baseline file, the runs of `dgxhost compare`,
// a journal): typed access that names where a value is ("$.results[2].metrics.time.value") and what was expected,
// instead of std::bad_variant_access. Every accessor throws json::ReadError; a reader catches it once, names the
// file, and fails with a usage error.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dgx/json/json.hpp"

namespace dgx::json {

/// "<path>: expected <what>, found <found>"
class ReadError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// What a value is, for messages: "null", "true", "an integer (3)", "a string (\"fast\")", "an array of 2", ...
std::string describe(const Value& value);

/// A value and its JSONPath in the document ("$" for the document itself).
class Cursor {
public:
  explicit Cursor(const Value& value, std::string path = "$") : value_(&value), path_(std::move(path)) {}

  [[nodiscard]] const Value& value() const { return *value_; }
  [[nodiscard]] const std::string& path() const { return path_; }

  [[nodiscard]] const Object& object() const;
  [[nodiscard]] const Array& array() const;
  [[nodiscard]] const std::string& string() const;
  [[nodiscard]] std::int64_t integer() const;
  [[nodiscard]] bool boolean() const;
  /// An integer or a floating-point number.
  [[nodiscard]] double number() const;
  /// A number, or null (a non-finite number, which JSON cannot hold, is written as null): NaN.
  [[nodiscard]] double number_or_null() const;

  /// A member this object must have.
  [[nodiscard]] Cursor operator[](std::string_view key) const;
  /// A member it may have; nullopt when absent.
  [[nodiscard]] std::optional<Cursor> find(std::string_view key) const;
  /// An optional string member: `fallback` when absent, an error when present and not a string.
  [[nodiscard]] std::string string_or(std::string_view key, std::string_view fallback = {}) const;
  /// The elements of this array, each with its path.
  [[nodiscard]] std::vector<Cursor> elements() const;
  /// The numbers in this array (integers or floating-point), for long ones such as sample times: no path is
  /// built unless an element is not a number.
  [[nodiscard]] std::vector<double> numbers() const;
  /// The members of this object, each with its path.
  [[nodiscard]] std::vector<std::pair<std::string, Cursor>> members() const;

  /// Throws the ReadError "<path>: expected <expected>, found <what this is>".
  [[noreturn]] void fail(std::string_view expected) const;

private:
  const Value* value_;
  std::string path_;
};

}  // namespace dgx::json
