// String helpers shared by the host: suggestions for misspelt names, joining, number formatting.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace dgx::text {

/// Levenshtein distance (insertions, deletions, substitutions), case-sensitive.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidates close to `name`, best first: small edit distance, or one contains the other. At most `limit`.
std::vector<std::string> close_matches(std::string_view name, const std::vector<std::string>& candidates,
                                       std::size_t limit = 5);

/// "did you mean 'a', 'b' or 'c'?" — or an empty string when there is nothing to suggest.
std::string did_you_mean(const std::vector<std::string>& matches);

std::string join(const std::vector<std::string>& parts, std::string_view separator);
std::vector<std::string> split(std::string_view text, char separator);
std::string trim(std::string_view text);
bool starts_with(std::string_view text, std::string_view prefix);

/// A number with `significant` significant digits, no exponent for everyday magnitudes.
std::string format_number(double value, int significant = 4);

}  // namespace dgx::text
