// dgxhost's JSON value, of the host's results and of the logs the plugins import: insertion-ordered objects (so
// "schema" comes first and keys keep the order a reader expects), integers apart from floats. Results are built with
// it; write() and parse() are nlohmann::json's reader and writer (json.cpp), and tests read results back with them.
// Reading a document someone else may have written goes through json_cursor.hpp, which says where a value of the wrong
// type is.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace dgx::json {

class Value;
using Array = std::vector<Value>;
/// One key of an object. A struct rather than std::pair: a vector of an incomplete struct is valid (C++17), so
/// Object can hold Values before Value is complete, which clang (and clang-tidy) require.
struct Member;

/// An object that keeps its keys in insertion order.
class Object {
public:
  // Declared here, defined after Member: the implicit ones would need Member complete inside Value.
  Object();
  ~Object();
  Object(const Object& other);
  Object(Object&& other) noexcept;
  Object& operator=(const Object& other);
  Object& operator=(Object&& other) noexcept;

  /// Sets `key`, replacing an existing value in place or appending.
  Value& set(std::string key, Value value);
  [[nodiscard]] const Value* find(std::string_view key) const;
  [[nodiscard]] Value* find(std::string_view key);
  /// The value of `key`; throws std::out_of_range naming the key when it is absent.
  [[nodiscard]] const Value& at(std::string_view key) const;
  [[nodiscard]] bool contains(std::string_view key) const { return find(key) != nullptr; }
  [[nodiscard]] std::size_t size() const;
  [[nodiscard]] bool empty() const;
  [[nodiscard]] std::vector<Member>::const_iterator begin() const;
  [[nodiscard]] std::vector<Member>::const_iterator end() const;

private:
  std::vector<Member> members_;
};

class Value {
public:
  using Storage = std::variant<std::nullptr_t, bool, std::int64_t, double, std::string, Array, Object>;

  Value() : storage_(nullptr) {}
  Value(std::nullptr_t) : storage_(nullptr) {}
  Value(bool b) : storage_(b) {}
  Value(int i) : storage_(static_cast<std::int64_t>(i)) {}
  Value(unsigned i) : storage_(static_cast<std::int64_t>(i)) {}
  Value(long i) : storage_(static_cast<std::int64_t>(i)) {}
  Value(long long i) : storage_(static_cast<std::int64_t>(i)) {}
  Value(unsigned long i) : storage_(static_cast<std::int64_t>(i)) {}
  Value(unsigned long long i) : storage_(static_cast<std::int64_t>(i)) {}
  Value(double d) : storage_(d) {}
  Value(const char* s) : storage_(std::string(s)) {}
  Value(std::string s) : storage_(std::move(s)) {}
  Value(std::string_view s) : storage_(std::string(s)) {}
  Value(Array a) : storage_(std::move(a)) {}
  Value(Object o) : storage_(std::move(o)) {}

  [[nodiscard]] bool is_null() const { return std::holds_alternative<std::nullptr_t>(storage_); }
  [[nodiscard]] bool is_bool() const { return std::holds_alternative<bool>(storage_); }
  [[nodiscard]] bool is_int() const { return std::holds_alternative<std::int64_t>(storage_); }
  [[nodiscard]] bool is_double() const { return std::holds_alternative<double>(storage_); }
  [[nodiscard]] bool is_number() const { return is_int() || is_double(); }
  [[nodiscard]] bool is_string() const { return std::holds_alternative<std::string>(storage_); }
  [[nodiscard]] bool is_array() const { return std::holds_alternative<Array>(storage_); }
  [[nodiscard]] bool is_object() const { return std::holds_alternative<Object>(storage_); }

  // Accessors throw std::bad_variant_access on a type mismatch; as_number() accepts integers too.
  [[nodiscard]] bool as_bool() const { return std::get<bool>(storage_); }
  [[nodiscard]] std::int64_t as_int() const { return std::get<std::int64_t>(storage_); }
  [[nodiscard]] double as_number() const {
    return is_int() ? static_cast<double>(as_int()) : std::get<double>(storage_);
  }
  [[nodiscard]] const std::string& as_string() const { return std::get<std::string>(storage_); }
  [[nodiscard]] const Array& as_array() const { return std::get<Array>(storage_); }
  [[nodiscard]] Array& as_array() { return std::get<Array>(storage_); }
  [[nodiscard]] const Object& as_object() const { return std::get<Object>(storage_); }
  [[nodiscard]] Object& as_object() { return std::get<Object>(storage_); }

  /// Object member access; throws when this is not an object or the key is absent.
  [[nodiscard]] const Value& operator[](std::string_view key) const { return as_object().at(key); }
  [[nodiscard]] const Value& operator[](std::size_t index) const { return as_array().at(index); }

  [[nodiscard]] const Storage& storage() const { return storage_; }
  friend bool operator==(const Value& a, const Value& b);

private:
  Storage storage_;
};

struct Member {
  std::string first;
  Value second;
};

inline Object::Object() = default;
inline Object::~Object() = default;
inline Object::Object(const Object& other) = default;
inline Object::Object(Object&& other) noexcept = default;
inline Object& Object::operator=(const Object& other) = default;
inline Object& Object::operator=(Object&& other) noexcept = default;
inline std::size_t Object::size() const { return members_.size(); }
inline bool Object::empty() const { return members_.empty(); }
inline std::vector<Member>::const_iterator Object::begin() const { return members_.begin(); }
inline std::vector<Member>::const_iterator Object::end() const { return members_.end(); }

bool operator==(const Object& a, const Object& b);
bool operator==(const Member& a, const Member& b);

/// Writes `value` as JSON. indent > 0 pretty-prints with that many spaces per level, arrays of scalars on one
/// line. Non-finite doubles become null (JSON has no NaN); doubles are written in the shortest form that reads
/// back exactly, always with a '.' or an exponent ("2.0"), so they read back as doubles. Invalid UTF-8 in
/// strings is written as U+FFFD.
std::string write(const Value& value, int indent = 2);

/// Parses a JSON document; throws std::runtime_error with the line and column where reading stopped and why, or
/// with the line where arrays and objects nest deeper than every reader allows (kMaxNesting, nesting.hpp).
Value parse(std::string_view text);

/// A value as a TOML literal, as config entries cross the plugin ABI ("8", "\"bf16\"", "[1, 2]"); null as "".
std::string to_toml_literal(const Value& value);

}  // namespace dgx::json
