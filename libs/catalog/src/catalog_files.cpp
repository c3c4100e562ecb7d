#include "dgx/catalog/catalog_files.hpp"

#include "dgx/catalog/embedded_configs.hpp"
#include "dgx/catalog/small_file.hpp"

#include <dgx/sdk/text.hpp>

#include <algorithm>
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

std::string unknown_entry(std::string_view noun, std::string_view name, const std::vector<std::string>& known,
                          std::string_view key, const std::string& likely) {
  namespace text = sdk::text;
  std::string message = "unknown " + std::string(noun) + " '" + std::string(name) + "'";
  if (!key.empty()) {
    message += " (config key " + std::string(key) + ")";
  }
  std::vector<std::string> matches = text::close_matches(name, known, 3, text::Swaps::two_edits);
  if (!likely.empty()) {
    matches.erase(std::remove(matches.begin(), matches.end(), likely), matches.end());
    matches.insert(matches.begin(), likely);
    if (matches.size() > 3) {
      matches.pop_back();
    }
  }
  const std::string suggestion = text::did_you_mean(matches);
  message += suggestion.empty() ? "." : "; " + suggestion;
  return message + " The catalog has: " + text::join(known, ", ");
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
