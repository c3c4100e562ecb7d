#include "dgx/core/support/json.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace dgx::json {

// Object ----------------------------------------------------------------------------------------------------

Value& Object::set(std::string key, Value value) {
  if (Value* existing = find(key)) {
    *existing = std::move(value);
    return *existing;
  }
  members_.push_back(Member{std::move(key), std::move(value)});
  return members_.back().second;
}

const Value* Object::find(std::string_view key) const {
  for (const auto& [k, v] : members_) {
    if (k == key) {
      return &v;
    }
  }
  return nullptr;
}

Value* Object::find(std::string_view key) {
  for (auto& [k, v] : members_) {
    if (k == key) {
      return &v;
    }
  }
  return nullptr;
}

const Value& Object::at(std::string_view key) const {
  if (const Value* v = find(key)) {
    return *v;
  }
  throw std::out_of_range("JSON object has no key '" + std::string(key) + "'");
}

bool operator==(const Object& a, const Object& b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (const auto& [key, value] : a) {
    const Value* other = b.find(key);
    if (other == nullptr || !(*other == value)) {
      return false;
    }
  }
  return true;
}

bool operator==(const Member& a, const Member& b) { return a.first == b.first && a.second == b.second; }

bool operator==(const Value& a, const Value& b) { return a.storage_ == b.storage_; }

// Reading and writing are nlohmann::json's: it parses, escapes strings and formats numbers (the shortest text
// that reads back as the same double, always with a '.' or an exponent, so integers and floats stay apart).
// The host keeps its own small value type because results are built and read through it everywhere; the two
// meet only here.

namespace {

using Json = nlohmann::ordered_json;

Json to_json(const Value& value);

struct ToJson {
  Json operator()(std::nullptr_t) const { return nullptr; }
  Json operator()(bool b) const { return b; }
  Json operator()(std::int64_t i) const { return i; }
  Json operator()(double d) const { return std::isfinite(d) ? Json(d) : Json(nullptr); }  // JSON has no NaN
  Json operator()(const std::string& s) const { return s; }
  Json operator()(const Array& a) const {
    Json out = Json::array();
    for (const Value& v : a) {
      out.push_back(to_json(v));
    }
    return out;
  }
  Json operator()(const Object& o) const {
    Json out = Json::object();
    for (const auto& [key, v] : o) {
      out[key] = to_json(v);
    }
    return out;
  }
};

Json to_json(const Value& value) { return std::visit(ToJson{}, value.storage()); }

Value from_json(const Json& j) {
  switch (j.type()) {
  case Json::value_t::boolean: return j.get<bool>();
  case Json::value_t::number_integer: return j.get<std::int64_t>();
  case Json::value_t::number_unsigned: {
    const auto u = j.get<std::uint64_t>();  // beyond int64: kept as a double, as any JSON reader would
    if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return static_cast<std::int64_t>(u);
    }
    return static_cast<double>(u);
  }
  case Json::value_t::number_float: return j.get<double>();
  case Json::value_t::string: return j.get<std::string>();
  case Json::value_t::array: {
    Array a;
    a.reserve(j.size());
    for (const Json& element : j) {
      a.push_back(from_json(element));
    }
    return a;
  }
  case Json::value_t::object: {
    Object o;
    for (const auto& [key, element] : j.items()) {
      o.set(key, from_json(element));
    }
    return o;
  }
  default: return nullptr;
  }
}

// Plugin strings, host names and argv are not guaranteed UTF-8: write U+FFFD for invalid bytes instead of failing
// the whole report.
std::string dump(const Json& j, int indent = -1) { return j.dump(indent, ' ', false, Json::error_handler_t::replace); }

// nlohmann's pretty printer puts every array element on its own line; arrays of scalars (sample times, shapes)
// read better on one, so the layout is ours and every scalar is nlohmann's.
class Layout {
public:
  explicit Layout(int indent) : indent_(indent) {}

  void value(const Json& j, int depth) {
    if (j.is_array() && !j.empty()) {
      return array(j, depth);
    }
    if (j.is_object() && !j.empty()) {
      return object(j, depth);
    }
    out_ += dump(j);
  }
  std::string take() { return std::move(out_); }

private:
  void newline(int depth) {
    out_ += '\n';
    out_.append(static_cast<std::size_t>(depth) * static_cast<std::size_t>(indent_), ' ');
  }
  void array(const Json& a, int depth) {
    const bool flat = std::none_of(a.begin(), a.end(), [](const Json& v) { return v.is_structured(); });
    out_ += '[';
    bool first = true;
    for (const Json& element : a) {
      if (!first) {
        out_ += flat ? ", " : ",";
      }
      first = false;
      if (!flat) {
        newline(depth + 1);
      }
      value(element, depth + 1);
    }
    if (!flat) {
      newline(depth);
    }
    out_ += ']';
  }
  void object(const Json& o, int depth) {
    out_ += '{';
    bool first = true;
    for (const auto& [key, element] : o.items()) {
      if (!first) {
        out_ += ',';
      }
      first = false;
      newline(depth + 1);
      out_ += dump(Json(key)) + ": ";
      value(element, depth + 1);
    }
    newline(depth);
    out_ += '}';
  }

  int indent_;
  std::string out_;
};

// "line:column" of the byte nlohmann stopped at (1-based, as editors count).
std::string position(std::string_view text, std::size_t byte) {
  const std::size_t end = std::min(byte > 0 ? byte - 1 : 0, text.size());
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return std::to_string(line) + ":" + std::to_string(column);
}

}  // namespace

std::string write(const Value& value, int indent) {
  const Json j = to_json(value);
  if (indent <= 0) {
    return dump(j);
  }
  Layout layout(indent);
  layout.value(j, 0);
  return layout.take();
}

Value parse(std::string_view text) {
  try {
    return from_json(Json::parse(text));
  } catch (const Json::parse_error& e) {
    // nlohmann's what() is "[json.exception.parse_error.101] parse error at line 2, column 8: <reason>".
    const std::string what = e.what();
    const auto colon = what.find(": ");
    const std::string reason = colon == std::string::npos ? what : what.substr(colon + 2);
    throw std::runtime_error("JSON parse error at " + position(text, e.byte) + ": " + reason);
  }
}

}  // namespace dgx::json
