#include "catalog_files.hpp"

#include <dgx/sdk/text.hpp>

#include <algorithm>
#include <cctype>
#include <utility>

namespace dgx::llm::detail {

namespace {

constexpr std::string_view kExtension = ".toml";

std::string prefix_of(std::string_view folder) { return std::string(folder) + "/"; }

/// Lower-case letters and digits only: users abbreviate catalog names ("llama70b") more than they misspell them.
std::string reduced(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> close_names(std::string_view name, const std::vector<std::string>& candidates,
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
  for (auto& [score, candidate] : scored) {
    if (out.size() == limit) {
      break;
    }
    out.push_back(std::move(candidate));
  }
  return out;
}

std::string unknown_entry(std::string_view noun, std::string_view name, const std::vector<std::string>& known) {
  std::string message = "unknown " + std::string(noun) + " '" + std::string(name) + "'; ";
  const std::vector<std::string> close = close_names(name, known);
  if (!close.empty()) {
    message += "did you mean ";
    for (std::size_t i = 0; i < close.size(); ++i) {
      message += (i == 0 ? "" : i + 1 == close.size() ? " or " : ", ") + ("'" + close[i] + "'");
    }
    message += "? ";
  }
  std::string list;
  for (const std::string& entry : known) {
    list += (list.empty() ? "" : ", ") + entry;
  }
  return message + "the catalog has: " + list;
}

std::vector<std::string> catalog_names(std::string_view folder) {
  const std::string prefix = prefix_of(folder);
  std::vector<std::string> names;
  for (const EmbeddedFile& file : embedded_configs()) {
    const std::string_view path = file.path;
    if (path.starts_with(prefix) && path.ends_with(kExtension) &&
        path.find('/', prefix.size()) == std::string_view::npos) {
      names.emplace_back(path.substr(prefix.size(), path.size() - prefix.size() - kExtension.size()));
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

Expected<EmbeddedFile> catalog_file(std::string_view folder, std::string_view noun, std::string_view name) {
  const std::string path = prefix_of(folder) + std::string(name) + std::string(kExtension);
  for (const EmbeddedFile& file : embedded_configs()) {
    if (file.path == path) {
      return file;
    }
  }
  return Error{unknown_entry(noun, name, catalog_names(folder))};
}

}  // namespace dgx::llm::detail
