#include "dgx/core/support/printable.hpp"

#include <cstdint>
#include <cstdio>

namespace dgx {

namespace {

// Length of the valid UTF-8 sequence at the start of `s` (1-4), or 0 (RFC 3629: no overlongs, no surrogates,
// nothing above U+10FFFF).
std::size_t utf8_sequence(std::string_view s) {
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(s[i]); };
  const std::uint8_t b0 = byte(0);
  if (b0 < 0x80) {
    return 1;
  }
  std::size_t n = 0;
  std::uint8_t low = 0x80, high = 0xbf;  // range of the second byte
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    n = 2;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    n = 3;
    if (b0 == 0xe0) {
      low = 0xa0;
    }
    if (b0 == 0xed) {
      high = 0x9f;
    }
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    n = 4;
    if (b0 == 0xf0) {
      low = 0x90;
    }
    if (b0 == 0xf4) {
      high = 0x8f;
    }
  } else {
    return 0;
  }
  if (s.size() < n || byte(1) < low || byte(1) > high) {
    return 0;
  }
  for (std::size_t i = 2; i < n; ++i) {
    if (byte(i) < 0x80 || byte(i) > 0xbf) {
      return 0;
    }
  }
  return n;
}

void escape(std::string& out, std::uint8_t c) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "\\x%02x", c);
  out += buffer;
}

}  // namespace

std::string printable(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const std::size_t n = utf8_sequence(text);
    if (n == 0) {
      out += "\xef\xbf\xbd";  // U+FFFD for one invalid byte
      text.remove_prefix(1);
      continue;
    }
    const auto c = static_cast<std::uint8_t>(text[0]);
    const bool c1 = n == 2 && c == 0xc2 && static_cast<std::uint8_t>(text[1]) < 0xa0;  // U+0080..U+009F
    // U+2028 and U+2029 end a line to YAML, JSON-in-JavaScript and many terminals: as "\u2028", "\u2029".
    const bool separator = n == 3 && c == 0xe2 && static_cast<std::uint8_t>(text[1]) == 0x80 &&
                           (static_cast<std::uint8_t>(text[2]) == 0xa8 || static_cast<std::uint8_t>(text[2]) == 0xa9);
    if (n == 1 && (c < 0x20 || c == 0x7f)) {
      if (keep_newlines && (c == '\n' || c == '\t')) {
        out += static_cast<char>(c);
      } else {
        escape(out, c);
      }
    } else if (c1) {
      escape(out, static_cast<std::uint8_t>(text[1]));
    } else if (separator) {
      out += static_cast<std::uint8_t>(text[2]) == 0xa8 ? "\\u2028" : "\\u2029";
    } else {
      out.append(text.substr(0, n));
    }
    text.remove_prefix(n);
  }
  return out;
}

std::string printable(const char* text, bool keep_newlines) {
  return text == nullptr ? std::string() : printable(std::string_view(text), keep_newlines);
}

}  // namespace dgx
