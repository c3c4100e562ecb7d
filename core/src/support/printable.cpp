#include "dgx/core/support/printable.hpp"

#include <cstdint>
#include <cstdio>

#include "dgx/core/support/text.hpp"

namespace dgx {

namespace {

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
    const std::size_t n = text::utf8_sequence_length(text);
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
