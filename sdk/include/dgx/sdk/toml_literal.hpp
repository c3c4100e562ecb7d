// Encodes C++ values as TOML value literals, the form in which config values cross the ABI
// (dgx_config_entry, dgx_param_desc::default_value).
#pragma once

#include <charconv>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dgx::sdk {

/// A TOML basic string: "text" with quotes, backslashes and control characters escaped.
inline std::string toml_literal(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\t': out += "\\t"; break;
    case '\r': out += "\\r"; break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        constexpr char hex[] = "0123456789abcdef";  // not static: see comm.hpp dtype_from_name()
        out += "\\u00";
        out += hex[(c >> 4) & 0xf];
        out += hex[c & 0xf];
      } else {
        out += c;
      }
    }
  }
  out += '"';
  return out;
}
inline std::string toml_literal(const char* text) { return toml_literal(std::string_view(text)); }
inline std::string toml_literal(const std::string& text) { return toml_literal(std::string_view(text)); }

inline std::string toml_literal(bool value) { return value ? "true" : "false"; }

template <std::integral T>
  requires(!std::same_as<T, bool> && !std::same_as<T, char>)
std::string toml_literal(T value) {
  return std::to_string(value);
}

/// The shortest text that reads back as the same double, always with a '.' or an exponent so that TOML reads
/// a float; nan and inf as TOML spells them.
inline std::string toml_literal(double value) {
  if (std::isnan(value)) {
    return "nan";
  }
  if (std::isinf(value)) {
    return value > 0 ? "inf" : "-inf";
  }
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  std::string text(buffer, result.ptr);
  if (text.find_first_of(".eE") == std::string::npos) {
    text += ".0";
  }
  return text;
}

template <typename T> std::string toml_literal(const std::vector<T>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i != 0) {
      out += ", ";
    }
    out += toml_literal(values[i]);
  }
  out += ']';
  return out;
}

}  // namespace dgx::sdk
