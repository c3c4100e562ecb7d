#include "dgx/core/support/json_cursor.hpp"

#include <cctype>
#include <cmath>

namespace dgx::json {

namespace {

bool is_identifier(std::string_view key) {
  if (key.empty() || std::isdigit(static_cast<unsigned char>(key[0])) != 0) {
    return false;
  }
  for (const char c : key) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '_') {
      return false;
    }
  }
  return true;
}

std::string member_path(const std::string& path, std::string_view key) {
  return is_identifier(key) ? path + "." + std::string(key) : path + "[" + write(Value(key), 0) + "]";
}

// A value as a message quotes it: JSON (escaped, so a control character cannot reach a terminal), cut short.
std::string quote_value(const Value& value) {
  constexpr std::size_t kMaxQuote = 40;
  std::string text = write(value, 0);
  if (text.size() > kMaxQuote) {
    text = text.substr(0, kMaxQuote) + "...";
  }
  return text;
}

}  // namespace

std::string describe(const Value& value) {
  if (value.is_null()) {
    return "null";
  }
  if (value.is_bool()) {
    return "a boolean (" + quote_value(value) + ")";
  }
  if (value.is_int()) {
    return "an integer (" + quote_value(value) + ")";
  }
  if (value.is_double()) {
    return "a number (" + quote_value(value) + ")";
  }
  if (value.is_string()) {
    return "a string (" + quote_value(value) + ")";
  }
  if (value.is_array()) {
    return value.as_array().empty() ? "an empty array" : "an array";
  }
  return value.as_object().empty() ? "an empty object" : "an object";
}

void Cursor::fail(std::string_view expected) const {
  throw ReadError(path_ + ": expected " + std::string(expected) + ", found " + describe(*value_));
}

const Object& Cursor::object() const {
  if (!value_->is_object()) {
    fail("an object");
  }
  return value_->as_object();
}

const Array& Cursor::array() const {
  if (!value_->is_array()) {
    fail("an array");
  }
  return value_->as_array();
}

const std::string& Cursor::string() const {
  if (!value_->is_string()) {
    fail("a string");
  }
  return value_->as_string();
}

std::int64_t Cursor::integer() const {
  if (!value_->is_int()) {
    fail("an integer");
  }
  return value_->as_int();
}

bool Cursor::boolean() const {
  if (!value_->is_bool()) {
    fail("true or false");
  }
  return value_->as_bool();
}

double Cursor::number() const {
  if (!value_->is_number()) {
    fail("a number");
  }
  return value_->as_number();
}

double Cursor::number_or_null() const {
  if (value_->is_null()) {
    return std::nan("");
  }
  if (!value_->is_number()) {
    fail("a number or null");
  }
  return value_->as_number();
}

Cursor Cursor::operator[](std::string_view key) const {
  const Value* member = object().find(key);
  if (member == nullptr) {
    throw ReadError(path_ + ": expected a member \"" + std::string(key) + "\", found none");
  }
  return Cursor(*member, member_path(path_, key));
}

std::optional<Cursor> Cursor::find(std::string_view key) const {
  const Value* member = object().find(key);
  if (member == nullptr) {
    return std::nullopt;
  }
  return Cursor(*member, member_path(path_, key));
}

std::string Cursor::string_or(std::string_view key, std::string_view fallback) const {
  const std::optional<Cursor> member = find(key);
  return member ? member->string() : std::string(fallback);
}

std::vector<Cursor> Cursor::elements() const {
  const Array& a = array();
  std::vector<Cursor> out;
  out.reserve(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    out.emplace_back(a[i], path_ + "[" + std::to_string(i) + "]");
  }
  return out;
}

std::vector<double> Cursor::numbers() const {
  const Array& a = array();
  std::vector<double> out;
  out.reserve(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_number()) {
      Cursor(a[i], path_ + "[" + std::to_string(i) + "]").fail("a number");
    }
    out.push_back(a[i].as_number());
  }
  return out;
}

std::vector<std::pair<std::string, Cursor>> Cursor::members() const {
  std::vector<std::pair<std::string, Cursor>> out;
  for (const auto& [key, value] : object()) {
    out.emplace_back(key, Cursor(value, member_path(path_, key)));
  }
  return out;
}

}  // namespace dgx::json
