// The text toolkit of dgxhost and its plugins (header-only): "did you mean ...?" suggestions, joining and
// splitting, number formatting, what a plain file name is. The host uses these same functions, so a plugin's messages
// read like the host's and a suggestion threshold exists once.
#pragma once

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <numeric>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dgx::sdk::text {

/// Whether edit_distance counts a swap of two adjacent characters as one edit.
enum class Swaps { two_edits, one_edit };

/// Levenshtein distance (insertions, deletions, substitutions), case-sensitive. With Swaps::one_edit it is the
/// optimal string alignment distance: "spni" is one typo away from "spin", as git's suggestions count it.
inline std::size_t edit_distance(std::string_view a, std::string_view b, Swaps swaps = Swaps::two_edits) {
  // Three rows of the dynamic programme: the one before the previous is needed for swaps only.
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  std::iota(previous.begin(), previous.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
      const bool swapped = i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1];
      if (swaps == Swaps::one_edit && swapped) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

namespace detail {

// A name as users mistype and abbreviate it: lower case letters and digits only ("Llama3.1-70B" -> "llama3170b").
inline std::string reduced(std::string_view name) {
  std::string out;
  for (const char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

}  // namespace detail

/// Up to `limit` candidates close to `name`, best first. Names are compared reduced to lower-case letters and
/// digits (so "llama70b" is two edits from "llama3.1-70b" and "--plugn" one from "--plugin"), about one edit in
/// three characters is allowed (at least one), and a candidate that contains the name or is contained in it (names
/// of three or more characters) scores as one edit. A candidate equal to `name` is not a suggestion.
/// A swap of two letters counts as `swaps` says: one edit for the host's suggestions (flags, plugins, config keys),
/// two for the catalog names of the LLM plugins (libs/llm-workload: models, systems, frameworks, price providers),
/// as each has always counted it.
inline std::vector<std::string> close_matches(std::string_view name, const std::vector<std::string>& candidates,
                                              std::size_t limit = 3, Swaps swaps = Swaps::one_edit) {
  const std::string wanted = detail::reduced(name);
  if (wanted.empty()) {
    return {};
  }
  const std::size_t threshold = std::max<std::size_t>(1, wanted.size() / 3);
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const std::string& candidate : candidates) {
    const std::string have = detail::reduced(candidate);
    if (candidate == name || have.empty()) {
      continue;
    }
    std::size_t score = edit_distance(wanted, have, swaps);
    const bool related = have.find(wanted) != std::string::npos || wanted.find(have) != std::string::npos;
    if (related && wanted.size() >= 3) {
      score = std::min<std::size_t>(score, 1);
    }
    if (score <= threshold) {
      scored.emplace_back(score, candidate);
    }
  }
  // Equal scores: the longer common prefix first ("llama3-70b": llama3.1-70b before llama2-70b, one edit each).
  const auto prefix = [&](const std::string& candidate) {
    const std::string have = detail::reduced(candidate);
    return static_cast<std::size_t>(std::mismatch(wanted.begin(), wanted.end(), have.begin(), have.end()).first -
                                    wanted.begin());
  };
  std::stable_sort(scored.begin(), scored.end(), [&](const auto& x, const auto& y) {
    return x.first != y.first ? x.first < y.first : prefix(x.second) > prefix(y.second);
  });
  std::vector<std::string> result;
  for (auto& [score, candidate] : scored) {
    if (result.size() == limit) {
      break;
    }
    if (std::find(result.begin(), result.end(), candidate) == result.end()) {
      result.push_back(std::move(candidate));
    }
  }
  return result;
}

/// "did you mean 'a', 'b' or 'c'?", or an empty string when there is nothing to suggest.
inline std::string did_you_mean(const std::vector<std::string>& matches) {
  if (matches.empty()) {
    return {};
  }
  std::string out = "did you mean ";
  for (std::size_t i = 0; i < matches.size(); ++i) {
    if (i != 0) {
      out += i + 1 == matches.size() ? " or " : ", ";
    }
    out += "'" + matches[i] + "'";
  }
  return out + "?";
}

/// The parts separated by `separator`: "a, b, c".
inline std::string join(const std::vector<std::string>& parts, std::string_view separator = ", ") {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i != 0) {
      out += separator;
    }
    out += parts[i];
  }
  return out;
}

/// The columns a UTF-8 string takes in a terminal: its code points ("±8.8%" is 5, not 6 bytes' worth), so tables
/// with units and signs such as µ, ± and ³ stay aligned. Every code point counts as one column (no wide CJK).
inline std::size_t display_width(std::string_view utf8) {
  std::size_t width = 0;
  for (const char c : utf8) {
    width += (static_cast<unsigned char>(c) & 0xC0U) != 0x80U ? 1 : 0;  // continuation bytes add no column
  }
  return width;
}

/// "a,b,,c" -> {"a", "b", "", "c"}: empty parts are kept.
inline std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.emplace_back(text.substr(start, end - start));
    if (end == std::string_view::npos) {
      return parts;
    }
    start = end + 1;
  }
}

/// Without leading and trailing spaces, tabs and line breaks.
inline std::string trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) {
    return {};
  }
  const auto last = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(first, last - first + 1));
}

inline bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

/// A number with `significant` significant digits, without an exponent for everyday magnitudes (1e-4 to 1e15).
inline std::string format_number(double value, int significant = 4) {
  if (std::isnan(value)) {
    return "nan";
  }
  if (std::isinf(value)) {
    return value > 0 ? "inf" : "-inf";
  }
  if (value == 0) {
    return "0";
  }
  const double magnitude = std::abs(value);
  char buffer[64];
  if (magnitude >= 1e15 || magnitude < 1e-4) {
    std::snprintf(buffer, sizeof buffer, "%.*e", std::max(significant - 1, 0), value);
    return buffer;
  }
  const int digits_before_point = static_cast<int>(std::floor(std::log10(magnitude))) + 1;
  const int decimals = std::max(significant - digits_before_point, 0);
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

/// `value` with `decimals` digits after the point, rounded as printf rounds: fixed(3.14159, 2) == "3.14".
inline std::string fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

/// An integer with thousands separators: 1234567 -> "1,234,567".
inline std::string grouped(long long value) {
  const std::string digits = std::to_string(value < 0 ? -value : value);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) {
      out += ',';
    }
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

/// Bytes in GiB with one decimal and no unit, for lists that name the unit once ("weights 8.1, gradients 8.1 GiB").
inline std::string gib_number(double bytes) { return fixed(bytes / (1024.0 * 1024.0 * 1024.0), 1); }

/// Bytes in GiB with one decimal, the unit HBM capacities are quoted in: "80.0 GiB".
inline std::string gib(double bytes) { return gib_number(bytes) + " GiB"; }

namespace detail {

// Three significant digits of a value scaled to a unit: 1.23, 12.3, 123.
inline std::string three_digits(double scaled) { return fixed(scaled, scaled >= 100 ? 0 : scaled >= 10 ? 1 : 2); }

}  // namespace detail

/// Dollars to three significant digits, scaled to a readable unit (a projection is not more precise than that):
/// "$870", "$12.50", "$12.3k", "$4.56M", "$1.23B". Below $10k they are dollars, with cents below $100.
inline std::string usd(double dollars) {
  const double magnitude = std::abs(dollars);
  if (magnitude >= 1e9) {
    return "$" + detail::three_digits(dollars / 1e9) + "B";
  }
  if (magnitude >= 1e6) {
    return "$" + detail::three_digits(dollars / 1e6) + "M";
  }
  if (magnitude >= 1e4) {
    return "$" + detail::three_digits(dollars / 1e3) + "k";
  }
  return "$" + fixed(dollars, magnitude >= 100 ? 0 : 2);
}

/// A large count with three significant digits: "70.5B", "1.00T", "850M", "68.2k"; below a thousand a whole number.
inline std::string si_count(double count) {
  const double magnitude = std::abs(count);
  if (magnitude >= 1e12) {
    return detail::three_digits(count / 1e12) + "T";
  }
  if (magnitude >= 1e9) {
    return detail::three_digits(count / 1e9) + "B";
  }
  if (magnitude >= 1e6) {
    return detail::three_digits(count / 1e6) + "M";
  }
  if (magnitude >= 1e3) {
    return detail::three_digits(count / 1e3) + "k";
  }
  return fixed(count, 0);
}

/// How duration() rounds: the two ways the project prints a time.
enum class Rounding : unsigned char {
  /// Fixed decimals per unit: ms below 1 s (one decimal below 100 ms, none above), s from 1 s (two decimals below
  /// 10 s, one above): "5.2 ms", "850 ms", "2.50 s", "12.3 s", "123.4 s". The LLM plugins' notes.
  decimals,
  /// Three significant digits, down to microseconds: "45.6 us", "5.20 ms", "2.50 s", "123 s". The host's iteration
  /// check (core/src/measure/iteration_check.cpp).
  significant,
};

/// Seconds in the unit that suits them, rounded as `rounding` says.
inline std::string duration(double seconds, Rounding rounding = Rounding::decimals) {
  if (rounding == Rounding::significant) {
    if (seconds >= 1) {
      return format_number(seconds, 3) + " s";
    }
    if (seconds >= 1e-3) {
      return format_number(seconds * 1e3, 3) + " ms";
    }
    return format_number(seconds * 1e6, 3) + " us";
  }
  if (seconds < 1) {
    return fixed(seconds * 1e3, seconds < 0.1 ? 1 : 0) + " ms";
  }
  return fixed(seconds, seconds < 10 ? 2 : 1) + " s";
}

/// Why `name` is no plain file name for a folder's entry (dgx_host_api::write_output_file), or empty: it is empty,
/// "." or "..", longer than 255 bytes, or holds '/', a NUL or another control character.
inline std::string file_name_problem(std::string_view name) {
  if (name.empty() || name == "." || name == "..") {
    return "'" + std::string(name) + "' names no file (expected a plain file name such as launch.sh)";
  }
  if (name.size() > 255) {
    return "a file name of " + std::to_string(name.size()) + " bytes is too long (expected at most 255)";
  }
  for (const char c : name) {
    if (c == '/') {
      return "'" + std::string(name) + "' holds '/': a file goes into the folder itself, not below or above it";
    }
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return "the file name holds control character " + std::to_string(static_cast<unsigned char>(c)) +
             " (expected printable characters)";
    }
  }
  return {};
}

/// Length of the valid UTF-8 sequence at the start of `s` (1-4), or 0 when it is empty or starts with no valid
/// sequence (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF).
inline std::size_t utf8_sequence_length(std::string_view s) {
  if (s.empty()) {
    return 0;
  }
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char b0 = byte(0);
  if (b0 < 0x80) {
    return 1;
  }
  std::size_t n = 0;
  unsigned char low = 0x80, high = 0xbf;  // range of the second byte
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    n = 2;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    n = 3;
    low = b0 == 0xe0 ? 0xa0 : low;
    high = b0 == 0xed ? 0x9f : high;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    n = 4;
    low = b0 == 0xf0 ? 0x90 : low;
    high = b0 == 0xf4 ? 0x8f : high;
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

/// Why `value` cannot stand on one line of a generated script or manifest, or empty: it holds a NUL or another
/// control character (C0, DEL, C1 such as U+0085 NEL), the line or paragraph separator U+2028/U+2029, or invalid
/// UTF-8. Such a value would end a comment, split a line, or be read differently by a YAML reader; quoting cannot
/// make a NUL safe at all, so it is refused, never escaped.
inline std::string one_line_problem(std::string_view value) {
  const auto code_point = [](unsigned number) {
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "U+%04X", number);
    return std::string(buffer);
  };
  for (std::size_t at = 0; at < value.size();) {
    const std::string_view rest = value.substr(at);
    const std::size_t n = utf8_sequence_length(rest);
    const auto b0 = static_cast<unsigned char>(rest[0]);
    if (n == 0) {
      return "invalid UTF-8 at byte " + std::to_string(at);
    }
    const auto b1 = n > 1 ? static_cast<unsigned char>(rest[1]) : 0;
    const auto b2 = n > 2 ? static_cast<unsigned char>(rest[2]) : 0;
    if (n == 1 && (b0 < 0x20 || b0 == 0x7f)) {
      return (b0 == '\n' || b0 == '\r' ? "a line break (" : "a control character (") + code_point(b0) + ")";
    }
    if (n == 2 && b0 == 0xc2 && b1 < 0xa0) {
      return (b1 == 0x85 ? "a line break (" : "a control character (") + code_point(b1) + ")";
    }
    if (n == 3 && b0 == 0xe2 && b1 == 0x80 && (b2 == 0xa8 || b2 == 0xa9)) {
      return "a line break (" + code_point(b2 == 0xa8 ? 0x2028 : 0x2029) + ")";
    }
    at += n;
  }
  return {};
}

/// `word` as one argument of a POSIX shell command line: unchanged when it holds only characters no shell treats
/// specially, else in single quotes with every ' written as '\'' (close, escaped quote, reopen). Check the word with
/// one_line_problem() first where the script has comments or is read line by line. For the command's own name (its
/// first word) use shell_quote_command().
inline std::string shell_quote(std::string_view word) {
  if (!word.empty() &&
      word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") ==
          std::string_view::npos) {
    return std::string(word);
  }
  std::string out = "'";
  for (const char c : word) {
    out += c == '\'' ? std::string_view("'\\''") : std::string_view(&c, 1);
  }
  return out + "'";
}

/// `word` as the first word of a POSIX shell command, the program to run: as shell_quote(), and quoted also when it
/// holds a '='. There an unquoted `NAME=value` is an assignment, not a command, and the shell would run the next word
/// (or nothing); an argument keeps its readable `--flag=value` and `NAME=value` (shell_quote).
inline std::string shell_quote_command(std::string_view word) {
  std::string quoted = shell_quote(word);
  if (quoted.size() == word.size() && word.find('=') != std::string_view::npos) {
    return "'" + quoted + "'";  // left unquoted, so it holds no '
  }
  return quoted;
}

}  // namespace dgx::sdk::text

namespace dgx::sdk {
// Plugins written before the toolkit had its own namespace call sdk::edit_distance.
using text::edit_distance;
}  // namespace dgx::sdk
