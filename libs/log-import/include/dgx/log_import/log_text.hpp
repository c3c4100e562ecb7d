// Reading the text of a log line by line, the one home of the small scanning helpers every log reader uses (numbers
// after a label, ANSI colour codes, JSON documents with the error naming the line): the plugins' parsers and the
// host's launcher-prefix stripping (core/src/import) alike.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <dgx/sdk/expected.hpp>
#include <dgx/sdk/format.hpp>

#include "dgx/json/json.hpp"

namespace dgx::logs {

/// Why a file gives no rows, for the user: "ORIGIN:LINE: what is wrong" (a usage error, exit code 2).
struct Failure {
  std::string message;
};

template <typename T> using Expected = sdk::Expected<T, Failure>;

/// A failure naming "ORIGIN:LINE: MESSAGE" (the line left out when 0).
Failure bad_input(const std::string& origin, int line, const std::string& message);

struct Line {
  std::string_view text;   // without the line break (nor a '\r' before it)
  int number = 0;          // 1-based
  bool line_break = true;  // false for a last line the file ends without one (a file cut off mid-line)
};

/// The lines of `text`; a last line without a line break is kept.
std::vector<Line> split_lines(std::string_view text);

/// The lines a parser reads, one at a time: the host's stream (a 100 MB log is never held whole: a parser keeps
/// what its rows need) or a text (the parsers' tests, the fuzz targets). head() is the file's first lines (all of
/// it when head_complete()), what the format's probe saw, for telling a variant apart before reading.
class LineSource {
public:
  /// The lines of a text held by the caller.
  explicit LineSource(std::string_view text);
  /// The lines of an import request (ABI 1.3: the host's stream; older hosts: its text).
  explicit LineSource(const sdk::ImportRequest& request);

  /// The next line ('\r' before its break off, as split_lines does); nullopt past the last. Its text is valid until
  /// the next call.
  std::optional<Line> next();

  [[nodiscard]] std::string_view head() const { return head_; }
  [[nodiscard]] bool head_complete() const { return head_complete_; }

  /// The whole text, each line at its number (a line of another rank empty), for a format read as one document (a
  /// JSON export, a report of a few kilobytes): the head when that is all of the file, else built from the lines
  /// (next() then has none left). Call it instead of next(), not after.
  std::string_view whole();

private:
  std::string_view head_;
  bool head_complete_ = true;
  std::function<std::optional<sdk::ImportLine>()> next_line_;
  std::string whole_;
};

/// Every line of `lines` through `read`, which returns a failure to stop at (the parsers' loop).
template <typename Read> std::optional<Failure> for_each_line(LineSource& lines, Read&& read) {
  while (const std::optional<Line> line = lines.next()) {
    if (std::optional<Failure> problem = read(*line)) {
      return problem;
    }
  }
  return std::nullopt;
}

std::string_view trim(std::string_view s);

/// `s` without ANSI escape sequences (torchtitan colours its metrics).
std::string strip_ansi(std::string_view s);

/// No number a tool prints is larger: beyond it a value is a corrupted number, not a measurement, and converting it
/// to an integer would overflow.
inline constexpr double kLargestNumber = 1e15;

/// `v` as a count (a batch, a step, a GPU count), rounded: nullopt unless finite and within 0..kLargestNumber.
std::optional<std::int64_t> as_count(double v);

/// A whole number token: "12.3", "1.0E-04", "6,667" (thousands separators), "35.9%" (a trailing % dropped).
/// Not a number when it is not finite or beyond ±kLargestNumber.
std::optional<double> parse_number(std::string_view token);

/// The number that follows `label` in `line` (after spaces, ':' or '='), e.g. number_after(line, "tflops") on
/// "... tflops: 386.1 ..." is 386.1. Empty when the label is absent or no number follows it.
std::optional<double> number_after(std::string_view line, std::string_view label);

/// The text after `label` up to the end of the line (trimmed), for "Model:   NAME" lines.
std::optional<std::string> text_after(std::string_view line, std::string_view label);

/// A JSON document; a usage failure naming the line where it stops otherwise (a file cut off is "truncated").
Expected<json::Value> parse_json_document(std::string_view text, const std::string& origin);

/// The number at `key` of an object, when it is one.
std::optional<double> number_at(const json::Value& object, std::string_view key);

}  // namespace dgx::logs
