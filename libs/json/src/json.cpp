#include "dgx/json/json.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <dgx/sdk/toml_literal.hpp>
#include <nlohmann/json.hpp>

#include "dgx/json/nesting.hpp"

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

// Reading --------------------------------------------------------------------------------------------------

struct TooDeep {};

// Builds a Value straight from nlohmann's SAX events: one tree in memory instead of two (a 300 MB results file
// must still be read), and the nesting limit checked as the document opens a container, before anything deep is
// built. nlohmann's SAX parser keeps its own state in a vector, so nothing here recurses.
class Builder {
public:
  using number_integer_t = Json::number_integer_t;
  using number_unsigned_t = Json::number_unsigned_t;
  using number_float_t = Json::number_float_t;
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;

  bool null() { return put(nullptr); }
  bool boolean(bool b) { return put(b); }
  bool number_integer(number_integer_t i) { return put(static_cast<std::int64_t>(i)); }
  bool number_unsigned(number_unsigned_t u) {
    if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return put(static_cast<std::int64_t>(u));
    }
    return put(static_cast<double>(u));  // beyond int64: kept as a double, as any JSON reader would
  }
  bool number_float(number_float_t d, const string_t& /*text*/) { return put(d); }
  bool string(string_t& s) { return put(std::move(s)); }
  bool binary(binary_t& /*b*/) { return put(nullptr); }  // not produced by the JSON text parser
  bool start_object(std::size_t /*elements*/) { return open(Object()); }
  bool key(string_t& k) {
    key_ = std::move(k);
    return true;
  }
  bool end_object() { return close(); }
  bool start_array(std::size_t /*elements*/) { return open(Array()); }
  bool end_array() { return close(); }
  [[noreturn]] bool parse_error(std::size_t byte, const std::string& /*token*/, const nlohmann::detail::exception& e) {
    // nlohmann's what() is "[json.exception.parse_error.101] parse error at line 2, column 8: <reason>".
    const std::string what = e.what();
    const auto colon = what.find(": ");
    const std::string reason = colon == std::string::npos ? what : what.substr(colon + 2);
    throw std::runtime_error("JSON parse error at " + position(text_, byte) + ": " + reason);
  }

  explicit Builder(std::string_view text) : text_(text) {}
  Value take() { return std::move(root_); }

private:
  // Where the next value goes: the root, the end of the innermost array, or the innermost object's current key.
  Value* slot() {
    if (open_.empty()) {
      return &root_;
    }
    Value& container = *open_.back();
    if (container.is_array()) {
      return &container.as_array().emplace_back();
    }
    return &container.as_object().set(std::move(key_), Value());
  }
  bool put(Value v) {
    *slot() = std::move(v);
    return true;
  }
  bool open(Value container) {
    if (open_.size() >= kMaxNesting) {
      throw TooDeep{};
    }
    Value* at = slot();
    *at = std::move(container);
    open_.push_back(at);  // stable: a container's elements move only when it grows, and it is not the innermost then
    return true;
  }
  bool close() {
    open_.pop_back();
    return true;
  }

  std::string_view text_;
  Value root_;
  std::vector<Value*> open_;
  std::string key_;
};

// The line of the first bracket that opens more than kMaxNesting containers, outside strings.
std::size_t too_deep_line(std::string_view text) {
  std::size_t line = 1, depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
    } else if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxNesting) {
        return line;
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return line;
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
  Builder builder(text);
  try {
    Json::sax_parse(text, &builder);
  } catch (const TooDeep&) {
    throw std::runtime_error(nesting_refusal(too_deep_line(text), nests_too_deep("arrays or objects")));
  }
  return builder.take();
}

std::string to_toml_literal(const Value& value) {
  if (value.is_string()) {
    return sdk::toml_literal(value.as_string());
  }
  if (value.is_bool()) {
    return sdk::toml_literal(value.as_bool());
  }
  if (value.is_int()) {
    return sdk::toml_literal(value.as_int());
  }
  if (value.is_double()) {
    return sdk::toml_literal(value.as_number());
  }
  if (value.is_array()) {
    std::string out = "[";
    for (const Value& element : value.as_array()) {
      out += (out.size() > 1 ? ", " : "") + to_toml_literal(element);
    }
    return out + "]";
  }
  return "\"\"";
}

}  // namespace dgx::json
