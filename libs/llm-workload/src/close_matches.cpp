#include "dgx/llm/workload/close_matches.hpp"

#include <dgx/sdk/text.hpp>

#include <algorithm>
#include <cctype>
#include <utility>

namespace dgx::llm::workload {

namespace {

std::string reduced(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    out += (i != 0 ? std::string(separator) : "") + items[i];
  }
  return out;
}

}  // namespace

std::vector<std::string> close_matches(std::string_view name, const std::vector<std::string>& candidates,
                                       std::size_t limit) {
  const std::string wanted = reduced(name);
  if (wanted.empty()) {
    return {};
  }
  const std::size_t threshold = std::max<std::size_t>(1, wanted.size() / 3);
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const std::string& candidate : candidates) {
    const std::string have = reduced(candidate);
    std::size_t score = sdk::edit_distance(wanted, have);
    if (wanted.size() >= 3 && (have.find(wanted) != std::string::npos || wanted.find(have) != std::string::npos)) {
      score = std::min<std::size_t>(score, 1);
    }
    if (score <= threshold) {
      scored.emplace_back(score, candidate);
    }
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (auto& entry : scored) {
    if (out.size() == limit) {
      break;
    }
    out.push_back(std::move(entry.second));
  }
  return out;
}

std::string unknown_name_message(std::string_view noun, std::string_view name, std::string_view key,
                                 const std::vector<std::string>& candidates, const std::string& likely) {
  std::string message =
      "unknown " + std::string(noun) + " '" + std::string(name) + "' (config key " + std::string(key) + ")";
  std::vector<std::string> matches = close_matches(name, candidates);
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
  if (!matches.empty()) {
    message += "; did you mean " + join(matches, " or ") + "?";
  }
  return message + " The catalog has: " + join(candidates, ", ");
}

}  // namespace dgx::llm::workload
