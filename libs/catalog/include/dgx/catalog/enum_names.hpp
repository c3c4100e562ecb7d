// Parsing an enum from the names its to_string() prints.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace dgx::catalog {

/// The value among `values` whose to_string() (found by argument-dependent lookup) is `text`.
template <class Enum, std::size_t N> std::optional<Enum> parse_by_name(std::string_view text, const Enum (&values)[N]) {
  for (const Enum value : values) {
    if (text == to_string(value)) {
      return value;
    }
  }
  return std::nullopt;
}

}  // namespace dgx::catalog
