// Text from plugins and from the file system reaches the user's terminal: a plugin name with an ANSI escape or a
// newline, a file name with invalid UTF-8. Everything such text passes through is made printable here once, at
// the boundary, so no reporter has to remember it.
#pragma once

#include <string>
#include <string_view>

namespace dgx {

/// `text` with every control character (C0 and C1) escaped as \xNN (newlines and tabs too, unless `keep_newlines`,
/// which keeps '\n' and '\t' for multi-line text such as notes), the line and paragraph separators U+2028 and U+2029 as
/// \u2028 and \u2029, and every byte that is not part of valid UTF-8 replaced by U+FFFD. Printable UTF-8 is unchanged.
std::string printable(std::string_view text, bool keep_newlines = false);

/// printable() of a C string from a plugin; NULL is "".
std::string printable(const char* text, bool keep_newlines = false);

}  // namespace dgx
