// Reading the text of a log line by line, the one home of the small scanning helpers every log reader uses (numbers
// after a label, ANSI colour codes, JSON documents with the error naming the line): the plugins' parsers and the
// host's launcher-prefix stripping (core/src/import) alike.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <dgx/sdk/expected.hpp>

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
  std::string_view text;  // without the line break
  int number = 0;         // 1-based
};

/// The lines of `text`; a last line without a line break is kept.
std::vector<Line> split_lines(std::string_view text);

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
