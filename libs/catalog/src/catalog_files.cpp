#include "dgx/catalog/catalog_files.hpp"

#include "dgx/catalog/embedded_configs.hpp"
#include "dgx/catalog/small_file.hpp"

#include <dgx/sdk/text.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>
#include <set>
#include <utility>

namespace dgx::catalog {

namespace {

constexpr std::string_view kExtension = ".toml";

/// The search folders and the files already read from them: the catalog reads a file once per process.
struct SearchState {
  std::mutex mutex;
  std::vector<SearchDir> dirs;
  std::map<std::string, std::optional<CatalogFile>, std::less<>> files;  // by relative path
};

SearchState& state() {
  static SearchState s;
  return s;
}

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

std::optional<CatalogFile> embedded_file(std::string_view relative) {
  const auto text = embedded_config(relative);
  if (!text) {
    return std::nullopt;
  }
  return CatalogFile{.relative = std::string(relative),
                     .label = "configs/" + std::string(relative),
                     .text = std::string(*text),
                     .embedded = true};
}

/// The stems of the .toml files directly under `dir`; empty when it cannot be read.
std::vector<std::string> stems_in(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == kExtension) {
      out.push_back(entry.path().stem().string());
    }
  }
  return out;
}

}  // namespace

void set_search_dirs(std::vector<SearchDir> dirs) {
  SearchState& s = state();
  const std::lock_guard lock(s.mutex);
  s.dirs = std::move(dirs);
  s.files.clear();
}

const std::vector<SearchDir>& search_dirs() { return state().dirs; }

Expected<std::optional<CatalogFile>> find_catalog_file(std::string_view relative) {
  SearchState& s = state();
  const std::lock_guard lock(s.mutex);
  if (const auto cached = s.files.find(relative); cached != s.files.end()) {
    return cached->second;
  }
  std::optional<CatalogFile> found;
  for (const SearchDir& dir : s.dirs) {
    const std::filesystem::path path = dir.path / std::filesystem::path(std::string(relative));
    std::error_code ec;
    if (!std::filesystem::exists(std::filesystem::symlink_status(path, ec))) {
      continue;
    }
    auto text = read_small_file(path, kMaxCatalogFileBytes);
    if (!text) {
      return Error{path.string() + " (" + dir.origin + "): " + text.error().message};
    }
    found = CatalogFile{.relative = std::string(relative), .label = path.string(), .text = std::move(*text)};
    break;
  }
  if (!found) {
    found = embedded_file(relative);
  }
  s.files.emplace(std::string(relative), found);
  return found;
}

Expected<std::vector<CatalogFile>> catalog_folder(std::string_view folder) {
  std::set<std::string> names;
  for (const SearchDir& dir : search_dirs()) {
    for (std::string& stem : stems_in(dir.path / std::filesystem::path(std::string(folder)))) {
      names.insert(std::move(stem));
    }
  }
  const std::string prefix = std::string(folder) + "/";
  for (const EmbeddedFile& file : embedded_configs()) {
    const std::string_view path = file.path;
    if (path.starts_with(prefix) && path.ends_with(kExtension) &&
        path.find('/', prefix.size()) == std::string_view::npos) {
      names.emplace(path.substr(prefix.size(), path.size() - prefix.size() - kExtension.size()));
    }
  }
  std::vector<CatalogFile> out;
  for (const std::string& name : names) {
    auto file = find_catalog_file(prefix + name + std::string(kExtension));
    if (!file) {
      return file.error();
    }
    if (*file) {
      out.push_back(std::move(**file));
    }
  }
  return out;
}

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
    if (std::find(out.begin(), out.end(), candidate) == out.end()) {
      out.push_back(std::move(candidate));
    }
  }
  return out;
}

std::string did_you_mean(std::string_view name, const std::vector<std::string>& known) {
  const std::vector<std::string> close = close_names(name, known);
  if (close.empty()) {
    return {};
  }
  std::string message = "did you mean ";
  for (std::size_t i = 0; i < close.size(); ++i) {
    message += (i == 0 ? "" : i + 1 == close.size() ? " or " : ", ") + ("'" + close[i] + "'");
  }
  return message + "?";
}

std::string unknown_entry(std::string_view noun, std::string_view name, const std::vector<std::string>& known) {
  std::string message = "unknown " + std::string(noun) + " '" + std::string(name) + "'; ";
  const std::string suggestion = did_you_mean(name, known);
  if (!suggestion.empty()) {
    message += suggestion + " ";
  }
  std::string list;
  for (const std::string& entry : known) {
    list += (list.empty() ? "" : ", ") + entry;
  }
  return message + "the catalog has: " + list;
}

std::vector<std::string> catalog_names(std::string_view folder) {
  const std::string prefix = std::string(folder) + "/";
  std::set<std::string> names;
  for (const EmbeddedFile& file : embedded_configs()) {
    const std::string_view path = file.path;
    if (path.starts_with(prefix) && path.ends_with(kExtension) &&
        path.find('/', prefix.size()) == std::string_view::npos) {
      names.emplace(path.substr(prefix.size(), path.size() - prefix.size() - kExtension.size()));
    }
  }
  for (const SearchDir& dir : search_dirs()) {
    for (std::string& stem : stems_in(dir.path / std::filesystem::path(std::string(folder)))) {
      names.insert(std::move(stem));
    }
  }
  return {names.begin(), names.end()};
}

Expected<CatalogFile> catalog_file(std::string_view folder, std::string_view noun, std::string_view name) {
  const bool plain = !name.empty() && name.find('/') == std::string_view::npos &&
                     name.find('\0') == std::string_view::npos && name != "." && name != "..";
  if (plain) {
    auto file = find_catalog_file(std::string(folder) + "/" + std::string(name) + std::string(kExtension));
    if (!file) {
      return file.error();
    }
    if (*file) {
      return std::move(**file);
    }
  }
  return Error{unknown_entry(noun, name, catalog_names(folder))};
}

}  // namespace dgx::catalog
