#include "dgx/core/support/yaml.hpp"

#include <array>
#include <cctype>
#include <cstdint>
#include <cstdio>

namespace dgx::yaml {

namespace {

// The words YAML 1.1 (go-yaml v2, PyYAML) or 1.2 read as booleans or null, in any case.
bool reserved_word(std::string_view text) {
  static constexpr std::array<std::string_view, 9> kWords = {"y",   "n",    "yes",   "no",  "on",
                                                             "off", "true", "false", "null"};
  for (const std::string_view word : kWords) {
    if (text.size() == word.size() && std::equal(text.begin(), text.end(), word.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) == b;
        })) {
      return true;
    }
  }
  return false;
}

// Plain only when nothing else can be read into it: a letter or '/' first (so no number, no indicator such as '-',
// '.inf', '~', '*', '&', '!'), then letters, digits and "_./-" only (no ': ', no ' #'), and not a reserved word.
bool plain(std::string_view text) {
  if (text.empty() || !(std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '/')) {
    return false;
  }
  for (const char c : text) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && std::string_view("_./-").find(c) == std::string_view::npos) {
      return false;
    }
  }
  return !reserved_word(text);
}

std::string hex_escape(const char* prefix, unsigned code, int digits) {
  std::array<char, 16> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%s%0*X", prefix, digits, code);
  return buffer.data();
}

// The code point of a UTF-8 sequence YAML must not carry raw in a double-quoted scalar: C1 controls (U+0085 is a
// line break to YAML 1.1), the line and paragraph separators and the byte-order mark. 0 for any other.
unsigned special_code_point(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return k < text.size() ? static_cast<std::uint8_t>(text[k]) : 0U; };
  if (byte(i) == 0xc2 && byte(i + 1) >= 0x80 && byte(i + 1) <= 0x9f) {
    return byte(i + 1);
  }
  if (byte(i) == 0xe2 && byte(i + 1) == 0x80 && (byte(i + 2) == 0xa8 || byte(i + 2) == 0xa9)) {
    return 0x2000U + (byte(i + 2) - 0x80U);
  }
  if (byte(i) == 0xef && byte(i + 1) == 0xbb && byte(i + 2) == 0xbf) {
    return 0xfeff;
  }
  return 0;
}

std::string double_quoted(std::string_view text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const auto byte = static_cast<std::uint8_t>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (byte < 0x20 || byte == 0x7f) {
      out += hex_escape("\\x", byte, 2);
    } else if (const unsigned code = special_code_point(text, i); code != 0) {
      out += hex_escape("\\u", code, 4);
      i += code < 0x100 ? 1 : 2;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// A literal block keeps a script readable: printable ASCII lines, none ending with a space and the first non-empty
// one not starting with one (a block would need indicators for them), at most one final newline.
bool literal_block(std::string_view text) {
  const std::size_t first = text.find_first_not_of('\n');
  if (text.find('\n') == std::string_view::npos || first == std::string_view::npos || text[first] == ' ' ||
      text.ends_with("\n\n")) {
    return false;
  }
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      if (i > 0 && text[i - 1] == ' ') {
        return false;
      }
    } else if (c < 0x20 || c > 0x7e) {
      return false;
    }
  }
  return text.back() != ' ';
}

std::string pad(int indent) { return std::string(static_cast<std::size_t>(indent), ' '); }

std::string scalar(const json::Value& value) {
  if (value.is_null()) {
    return "null";
  }
  if (value.is_bool()) {
    return value.as_bool() ? "true" : "false";
  }
  if (value.is_int()) {
    return std::to_string(value.as_int());
  }
  if (value.is_double()) {
    return json::write(value, 0);  // "2.0", "1e+30", null for a non-finite number: YAML reads them back alike
  }
  if (value.is_string()) {
    return yaml::quoted(value.as_string());
  }
  return value.is_array() ? "[]" : "{}";
}

bool nested(const json::Value& value) {
  return (value.is_object() && !value.as_object().empty()) || (value.is_array() && !value.as_array().empty());
}

void mapping(std::string& out, const json::Object& object, int indent);
void sequence(std::string& out, const json::Array& array, int indent);

// What follows "key:" or "-": a scalar on the same line, a literal block, or the nested block at `indent`.
void after_indicator(std::string& out, const json::Value& value, int indent) {
  if (value.is_object() && nested(value)) {
    out += '\n';
    mapping(out, value.as_object(), indent);
  } else if (value.is_array() && nested(value)) {
    out += '\n';
    sequence(out, value.as_array(), indent);
  } else if (value.is_string() && literal_block(value.as_string())) {
    const std::string& text = value.as_string();
    out += text.back() == '\n' ? " |\n" : " |-\n";
    std::size_t start = 0;
    while (start < text.size()) {
      const std::size_t end = std::min(text.find('\n', start), text.size());
      const std::string_view line = std::string_view(text).substr(start, end - start);
      out += line.empty() ? "\n" : pad(indent) + std::string(line) + "\n";
      start = end + 1;
    }
  } else {
    out += ' ' + scalar(value) + '\n';
  }
}

void mapping(std::string& out, const json::Object& object, int indent) {
  for (const json::Member& member : object) {
    out += pad(indent) + yaml::quoted(member.first) + ':';
    // A sequence under a key sits at the key's own indentation, as kubectl writes it.
    after_indicator(out, member.second, member.second.is_array() ? indent : indent + 2);
  }
}

void sequence(std::string& out, const json::Array& array, int indent) {
  for (const json::Value& item : array) {
    if (!nested(item)) {
      out += pad(indent) + "-";
      after_indicator(out, item, indent + 2);
      continue;
    }
    // The item's first line shares the line of its "- ".
    std::string block;
    if (item.is_object()) {
      mapping(block, item.as_object(), indent + 2);
    } else {
      sequence(block, item.as_array(), indent + 2);
    }
    out += pad(indent) + "- " + block.substr(static_cast<std::size_t>(indent) + 2);
  }
}

}  // namespace

std::string quoted(std::string_view text) { return plain(text) ? std::string(text) : double_quoted(text); }

std::string write(const json::Value& value) {
  std::string out;
  if (value.is_object() && nested(value)) {
    mapping(out, value.as_object(), 0);
  } else if (value.is_array() && nested(value)) {
    sequence(out, value.as_array(), 0);
  } else {
    out = scalar(value) + "\n";
  }
  return out;
}

}  // namespace dgx::yaml
