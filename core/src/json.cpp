#include "dgx/core/json.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace dgx::json {

// Object ----------------------------------------------------------------------------------------------------

Value& Object::set(std::string key, Value value) {
  if (Value* existing = find(key)) {
    *existing = std::move(value);
    return *existing;
  }
  members_.emplace_back(std::move(key), std::move(value));
  return members_.back().second;
}

const Value* Object::find(std::string_view key) const {
  for (const auto& [k, v] : members_)
    if (k == key) return &v;
  return nullptr;
}

Value* Object::find(std::string_view key) {
  for (auto& [k, v] : members_)
    if (k == key) return &v;
  return nullptr;
}

const Value& Object::at(std::string_view key) const {
  if (const Value* v = find(key)) return *v;
  throw std::out_of_range("JSON object has no key '" + std::string(key) + "'");
}

bool operator==(const Object& a, const Object& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [key, value] : a) {
    const Value* other = b.find(key);
    if (other == nullptr || !(*other == value)) return false;
  }
  return true;
}

bool operator==(const Value& a, const Value& b) { return a.storage_ == b.storage_; }

// Writer ----------------------------------------------------------------------------------------------------

namespace {

void write_string(std::string& out, std::string_view s) {
  out += '"';
  for (const char c : s) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        static constexpr char hex[] = "0123456789abcdef";
        out += "\\u00";
        out += hex[(c >> 4) & 0xf];
        out += hex[c & 0xf];
      } else {
        out += c;
      }
    }
  }
  out += '"';
}

void write_double(std::string& out, double d) {
  if (!std::isfinite(d)) {
    out += "null";
    return;
  }
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, d);
  out.append(buffer, result.ptr);
}

class Writer {
public:
  explicit Writer(int indent) : indent_(indent) {}

  void value(const Value& v, int depth) {
    std::visit([&](const auto& x) { write(x, depth); }, v.storage());
  }
  std::string take() { return std::move(out_); }

private:
  void newline(int depth) {
    if (indent_ <= 0) return;
    out_ += '\n';
    out_.append(static_cast<std::size_t>(depth * indent_), ' ');
  }
  void write(std::nullptr_t, int) { out_ += "null"; }
  void write(bool b, int) { out_ += b ? "true" : "false"; }
  void write(std::int64_t i, int) { out_ += std::to_string(i); }
  void write(double d, int) { write_double(out_, d); }
  void write(const std::string& s, int) { write_string(out_, s); }
  void write(const Array& a, int depth) {
    if (a.empty()) {
      out_ += "[]";
      return;
    }
    // Arrays of scalars stay on one line: sample lists and shapes are easier to read that way.
    const bool flat = std::all_of(a.begin(), a.end(), [](const Value& v) { return !v.is_array() && !v.is_object(); });
    out_ += '[';
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (i != 0) out_ += flat && indent_ > 0 ? ", " : ",";
      if (!flat) newline(depth + 1);
      value(a[i], depth + 1);
    }
    if (!flat) newline(depth);
    out_ += ']';
  }
  void write(const Object& o, int depth) {
    if (o.empty()) {
      out_ += "{}";
      return;
    }
    out_ += '{';
    bool first = true;
    for (const auto& [key, v] : o) {
      if (!first) out_ += ',';
      first = false;
      newline(depth + 1);
      write_string(out_, key);
      out_ += indent_ > 0 ? ": " : ":";
      value(v, depth + 1);
    }
    newline(depth);
    out_ += '}';
  }

  int indent_;
  std::string out_;
};

}  // namespace

std::string write(const Value& value, int indent) {
  Writer writer(indent);
  writer.value(value, 0);
  return writer.take();
}

// Parser ----------------------------------------------------------------------------------------------------

namespace {

class Parser {
public:
  explicit Parser(std::string_view text) : text_(text) {}

  Value document() {
    Value v = value();
    skip_space();
    if (pos_ != text_.size()) fail("unexpected text after the JSON value");
    return v;
  }

private:
  [[noreturn]] void fail(const std::string& what) const {
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    throw std::runtime_error("JSON parse error at " + std::to_string(line) + ":" + std::to_string(column) + ": " +
                             what);
  }
  void skip_space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\r' || text_[pos_] == '\t'))
      ++pos_;
  }
  char peek() {
    skip_space();
    if (pos_ >= text_.size()) fail("unexpected end of input");
    return text_[pos_];
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  bool consume_literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  Value value() {
    const char c = peek();
    if (c == '{') return object();
    if (c == '[') return array();
    if (c == '"') return string();
    if (consume_literal("true")) return true;
    if (consume_literal("false")) return false;
    if (consume_literal("null")) return nullptr;
    return number();
  }

  Value object() {
    expect('{');
    Object o;
    if (peek() == '}') {
      ++pos_;
      return o;
    }
    while (true) {
      if (peek() != '"') fail("expected a string key");
      std::string key = string();
      expect(':');
      o.set(std::move(key), value());
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      expect('}');
      return o;
    }
  }

  Value array() {
    expect('[');
    Array a;
    if (peek() == ']') {
      ++pos_;
      return a;
    }
    while (true) {
      a.push_back(value());
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      expect(']');
      return a;
    }
  }

  std::string string() {
    expect('"');
    std::string out;
    while (true) {
      if (pos_ >= text_.size()) fail("unterminated string");
      const char c = text_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) fail("unterminated escape");
      const char e = text_[pos_++];
      switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': append_utf8(out, hex4()); break;
      default: fail("invalid escape");
      }
    }
  }

  unsigned hex4() {
    if (pos_ + 4 > text_.size()) fail("short \\u escape");
    unsigned code = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = text_[pos_++];
      code <<= 4;
      if (h >= '0' && h <= '9')
        code |= static_cast<unsigned>(h - '0');
      else if (h >= 'a' && h <= 'f')
        code |= static_cast<unsigned>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F')
        code |= static_cast<unsigned>(h - 'A' + 10);
      else
        fail("invalid hex digit in \\u escape");
    }
    return code;
  }

  static void append_utf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xc0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3f));
    } else {
      out += static_cast<char>(0xe0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (code & 0x3f));
    }
  }

  Value number() {
    const std::size_t start = pos_;
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    bool is_float = false;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c >= '0' && c <= '9') {
        ++pos_;
      } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
        is_float = true;
        ++pos_;
      } else {
        break;
      }
    }
    const std::string_view token = text_.substr(start, pos_ - start);
    if (token.empty() || token == "-") fail("expected a value");
    if (!is_float) {
      std::int64_t i = 0;
      const auto r = std::from_chars(token.data(), token.data() + token.size(), i);
      if (r.ec == std::errc() && r.ptr == token.data() + token.size()) return i;
    }
    double d = 0;
    const auto r = std::from_chars(token.data(), token.data() + token.size(), d);
    if (r.ec != std::errc() || r.ptr != token.data() + token.size())
      fail("invalid number '" + std::string(token) + "'");
    return d;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace

Value parse(std::string_view text) { return Parser(text).document(); }

}  // namespace dgx::json
