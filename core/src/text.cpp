#include "dgx/core/text.hpp"

#include <dgx/sdk/text.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace dgx::text {

std::size_t edit_distance(std::string_view a, std::string_view b) { return sdk::edit_distance(a, b); }

std::vector<std::string> close_matches(std::string_view name, const std::vector<std::string>& candidates,
                                       std::size_t limit) {
  // Allow roughly one typo per three characters, at least two.
  const std::size_t threshold = std::max<std::size_t>(2, name.size() / 3);
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const std::string& candidate : candidates) {
    if (candidate.empty() || candidate == name) continue;
    std::size_t score = edit_distance(name, candidate);
    const bool related = candidate.find(name) != std::string::npos || name.find(candidate) != std::string::npos;
    if (related && name.size() >= 2) score = std::min<std::size_t>(score, 1);
    if (score <= threshold) scored.emplace_back(score, candidate);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> result;
  for (auto& [score, candidate] : scored) {
    if (result.size() == limit) break;
    if (std::find(result.begin(), result.end(), candidate) == result.end()) result.push_back(std::move(candidate));
  }
  return result;
}

std::string did_you_mean(const std::vector<std::string>& matches) {
  if (matches.empty()) return {};
  std::string out = "did you mean ";
  for (std::size_t i = 0; i < matches.size(); ++i) {
    if (i != 0) out += i + 1 == matches.size() ? " or " : ", ";
    out += "'" + matches[i] + "'";
  }
  return out + "?";
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i != 0) out += separator;
    out += parts[i];
  }
  return out;
}

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.emplace_back(text.substr(start, end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

std::string trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(first, last - first + 1));
}

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

std::string format_number(double value, int significant) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (value == 0) return "0";
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

}  // namespace dgx::text
