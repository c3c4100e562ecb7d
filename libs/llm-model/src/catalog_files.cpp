#include "catalog_files.hpp"

#include <algorithm>

namespace dgx::llm::detail {

namespace {

constexpr std::string_view kExtension = ".toml";

std::string prefix_of(std::string_view folder) { return std::string(folder) + "/"; }

}  // namespace

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
  std::string known;
  for (const std::string& entry : catalog_names(folder)) {
    known += (known.empty() ? "" : ", ") + entry;
  }
  return Error{"unknown " + std::string(noun) + " '" + std::string(name) + "'; the catalog has: " + known};
}

}  // namespace dgx::llm::detail
