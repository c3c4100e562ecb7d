#include "dgx/llm/workload/unknown_name.hpp"

#include <algorithm>

#include <dgx/sdk/text.hpp>

namespace dgx::llm::workload {

std::string unknown_name_message(std::string_view noun, std::string_view name, std::string_view key,
                                 const std::vector<std::string>& candidates, const std::string& likely) {
  namespace text = dgx::sdk::text;
  std::string message =
      "unknown " + std::string(noun) + " '" + std::string(name) + "' (config key " + std::string(key) + ")";
  std::vector<std::string> matches = text::close_matches(name, candidates, 3, text::Swaps::two_edits);
  if (!likely.empty()) {
    matches.erase(std::remove(matches.begin(), matches.end(), likely), matches.end());
    matches.insert(matches.begin(), likely);
    if (matches.size() > 3) {
      matches.pop_back();
    }
  }
  for (std::string& m : matches) {
    m = "'" + m + "'";
  }
  message += matches.empty() ? "." : "; did you mean " + text::join(matches, " or ") + "?";
  return message + " The catalog has: " + text::join(candidates, ", ");
}

}  // namespace dgx::llm::workload
