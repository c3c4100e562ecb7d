// How deeply a document dgxhost reads may nest, and how a reader refuses one that nests deeper: one limit and one
// message for every reader (TOML configs, presets and --set values; JSON results, baselines, compared runs and
// journals). Parsers and the values they build recurse, and a few hundred kilobytes of brackets would otherwise
// overflow the stack; what dgxhost itself writes nests a handful of levels.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace dgx {

inline constexpr std::size_t kMaxNesting = 32;

/// "<what> nest more than 32 deep"
inline std::string nests_too_deep(std::string_view what) {
  return std::string(what) + " nest more than " + std::to_string(kMaxNesting) + " deep";
}

/// Every reader's refusal, after the document's name: "line <line>: <problem>; dgxhost refuses documents nested
/// this deeply".
inline std::string nesting_refusal(std::size_t line, std::string_view problem) {
  return "line " + std::to_string(line) + ": " + std::string(problem) +
         "; dgxhost refuses documents nested this deeply";
}

}  // namespace dgx
