// Wrapping text to the terminal: the width of the terminal stdout writes to, and words wrapped to a width. The
// terminal table's notes wrap to a terminal; what goes to a pipe or a file does not (unless COLUMNS asks), so scripts
// and grep see one line per note line. --describe's help column, a reference a user reads with less or in a file,
// wraps at 100 columns there.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace dgx {

/// The columns to wrap stdout's text to: COLUMNS when set to a number (0: do not wrap), else the width of the
/// terminal stdout is, else 0 (a pipe or a file: no wrapping).
[[nodiscard]] std::size_t stdout_width();

/// stdout_width(), or `piped` where stdout is a pipe or a file and COLUMNS does not say: for text meant to be read,
/// not parsed (--describe).
[[nodiscard]] std::size_t reading_width(std::size_t piped);

/// `text` in lines of at most `width` display columns, broken at spaces (a word longer than the width, such as a
/// path, is cut, after a '/' where one is near the end); `width` 0: the text as one line. Never an empty vector.
[[nodiscard]] std::vector<std::string> wrap_words(std::string_view text, std::size_t width);

}  // namespace dgx
