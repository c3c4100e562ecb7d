#include "dgx/log_import/log_text.hpp"

#include <cmath>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <stdexcept>

#include "parsed_run.hpp"

namespace dgx::logs {

Failure bad_input(const std::string& origin, int line, const std::string& message) {
  return Failure{origin + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + message};
}

namespace {

Line without_cr(const sdk::ImportLine& l) {
  std::string_view text = l.text;
  if (!text.empty() && text.back() == '\r') {
    text.remove_suffix(1);
  }
  return {text, l.number, l.line_break};
}

}  // namespace

std::vector<Line> split_lines(std::string_view text) {
  std::vector<Line> lines;
  const auto next = sdk::detail::lines_of(text);
  while (const auto line = next()) {
    lines.push_back(without_cr(*line));
  }
  return lines;
}

LineSource::LineSource(std::string_view text) : head_(text), next_line_(sdk::detail::lines_of(text)) {}

LineSource::LineSource(const sdk::ImportRequest& request)
    : head_(request.text), head_complete_(request.text_complete),
      next_line_(request.next_line ? request.next_line : sdk::detail::lines_of(request.text)) {}

std::optional<Line> LineSource::next() {
  const std::optional<sdk::ImportLine> line = next_line_();
  return line ? std::optional<Line>(without_cr(*line)) : std::nullopt;
}

std::string_view LineSource::whole() {
  if (head_complete_) {
    return head_;
  }
  int number = 0;
  while (const std::optional<sdk::ImportLine> line = next_line_()) {
    whole_.append(static_cast<std::size_t>(std::max(0, line->number - number - 1)), '\n');  // other ranks' lines
    whole_ += line->text;
    whole_ += line->line_break ? "\n" : "";
    number = line->number;
  }
  return whole_;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())) != 0) {
    s.remove_prefix(1);
  }
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0) {
    s.remove_suffix(1);
  }
  return s;
}

std::string strip_ansi(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\x1b') {
      out.push_back(s[i]);
      continue;
    }
    // CSI: ESC [ parameters final-byte (a letter).
    if (i + 1 < s.size() && s[i + 1] == '[') {
      i += 2;
      while (i < s.size() && std::isalpha(static_cast<unsigned char>(s[i])) == 0) {
        ++i;
      }
    }
  }
  return out;
}

std::optional<double> parse_number(std::string_view token) {
  std::string digits;
  for (char c : trim(token)) {
    if (c != ',') {
      digits.push_back(c);
    }
  }
  if (!digits.empty() && digits.back() == '%') {
    digits.pop_back();
  }
  if (!digits.empty() && digits.front() == '+') {
    digits.erase(0, 1);
  }
  double value = 0;
  const char* end = digits.data() + digits.size();
  const auto [ptr, ec] = std::from_chars(digits.data(), end, value);
  if (digits.empty() || ec != std::errc() || ptr != end || !std::isfinite(value) || std::abs(value) > kLargestNumber) {
    return std::nullopt;
  }
  return value;
}

std::optional<std::int64_t> as_count(double v) {
  if (!std::isfinite(v) || v < 0 || v > kLargestNumber) {
    return std::nullopt;
  }
  return std::llround(v);
}

namespace {

// The token of number characters starting at `s`.
std::string_view number_token(std::string_view s) {
  std::size_t n = 0;
  while (n < s.size() && (std::isdigit(static_cast<unsigned char>(s[n])) != 0 || s[n] == '.' || s[n] == ',' ||
                          s[n] == '-' || s[n] == '+' || s[n] == 'e' || s[n] == 'E')) {
    ++n;
  }
  std::string_view token = s.substr(0, n);
  while (!token.empty() && (token.back() == ',' || token.back() == '.')) {  // "12," ends a sentence clause
    token.remove_suffix(1);
  }
  return token;
}

std::string_view after_label(std::string_view line, std::string_view label) {
  const std::size_t at = line.find(label);
  if (at == std::string_view::npos) {
    return {};
  }
  std::string_view rest = line.substr(at + label.size());
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == ':' || rest.front() == '=' || rest.front() == '\t')) {
    rest.remove_prefix(1);
  }
  return rest;
}

}  // namespace

std::optional<double> number_after(std::string_view line, std::string_view label) {
  const std::string_view rest = after_label(line, label);
  return rest.empty() ? std::nullopt : parse_number(number_token(rest));
}

std::optional<std::string> text_after(std::string_view line, std::string_view label) {
  if (line.find(label) == std::string_view::npos) {
    return std::nullopt;
  }
  return std::string(trim(after_label(line, label)));
}

Expected<json::Value> parse_json_document(std::string_view text, const std::string& origin) {
  try {
    return json::parse(text);
  } catch (const std::runtime_error& e) {
    const std::string why = e.what();
    const bool cut = why.find("unexpected end of input") != std::string::npos;
    return bad_input(origin, 0,
                     std::string(cut ? "truncated JSON (the file ends mid-document): " : "not valid JSON: ") + why);
  }
}

std::optional<double> number_at(const json::Value& object, std::string_view key) {
  if (!object.is_object()) {
    return std::nullopt;
  }
  const json::Value* v = object.as_object().find(key);
  if (v == nullptr || !v->is_number() || !std::isfinite(v->as_number()) || std::abs(v->as_number()) > kLargestNumber) {
    return std::nullopt;
  }
  return v->as_number();
}

}  // namespace dgx::logs
