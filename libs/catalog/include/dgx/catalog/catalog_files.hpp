// Where the catalog's files come from, and how an entry is found by name. One search order for every reader, the
// host's and every plugin's: the folders a user named (--config-dir), then DGX_CONFIG_PATH, then the install's
// configs (the host hands these over: set_search_dirs), and last, always, the copy of configs/ compiled into the
// library, so the catalog works with no file on disk. A file found earlier hides the one of the same path later,
// as a preset does; a user's folder adds entries (models/my-model.toml) or replaces them.
#pragma once

#include "dgx/catalog/expected.hpp"

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dgx::catalog {

/// A folder of catalog files (it holds models/, systems/, ...), and who named it, for messages.
struct SearchDir {
  std::filesystem::path path;
  std::string origin;  ///< "--config-dir", "DGX_CONFIG_PATH", "next to dgxhost", ...
};

/// Sets the folders searched before the compiled-in copy, highest priority first. Each library copy (the host's,
/// each plugin's) has its own: a plugin sets its copy from what the host hands it at init.
void set_search_dirs(std::vector<SearchDir> dirs);
[[nodiscard]] const std::vector<SearchDir>& search_dirs();

/// Catalog files are small: a larger one, or anything that is not a regular file (a FIFO, a device, a folder), is
/// refused without blocking.
inline constexpr std::size_t kMaxCatalogFileBytes = std::size_t{4} << 20;

/// One catalog file: its text, and the name messages give it (the path on disk, or "configs/<relative>" for the
/// compiled-in copy).
struct CatalogFile {
  std::string relative;  ///< "models/llama3.1-8b.toml"
  std::string label;     ///< what messages call it
  std::string text;
  bool embedded = false;
};

/// The file at `relative` ("checks/platform-check.toml") in the first search folder holding it, else the compiled-in
/// copy; nullopt when neither has it. An unreadable file on disk is an error naming it.
[[nodiscard]] Expected<std::optional<CatalogFile>> find_catalog_file(std::string_view relative);

/// Every .toml file directly under `folder` ("baselines"), one per file name (the first search folder holding a
/// name wins), sorted by name.
[[nodiscard]] Expected<std::vector<CatalogFile>> catalog_folder(std::string_view folder);

/// The one wording of an unknown catalog name, wherever it is typed: "unknown <noun> 'name' (config key <key>); did
/// you mean 'a' or 'b'? The catalog has: ...". The suggestions are the SDK's close matches (as every did-you-mean of
/// dgxhost), a swap of two letters counting as two edits; `likely`, when not empty, is suggested first (the model of
/// a preset whose name was given as the model). Without a key the parenthesis is left out.
[[nodiscard]] std::string unknown_entry(std::string_view noun, std::string_view name,
                                        const std::vector<std::string>& known, std::string_view key = {},
                                        const std::string& likely = {});

/// Entry names (file stems) of the .toml files directly under `folder` ("models") in every search folder and the
/// compiled-in copy, sorted, each once.
[[nodiscard]] std::vector<std::string> catalog_names(std::string_view folder);

/// The file folder/name.toml, or an error naming the `noun` ("model") and listing the known names.
[[nodiscard]] Expected<CatalogFile> catalog_file(std::string_view folder, std::string_view noun, std::string_view name);

/// Runs `parse(text, label)` (returning Expected<T>) on an entry and checks that the file's `name` matches.
template <class Parse>
auto load_catalog_entry(std::string_view folder, std::string_view noun, std::string_view name, Parse parse)
    -> decltype(parse(std::string_view{}, std::string_view{})) {
  auto file = catalog_file(folder, noun, name);
  if (!file) {
    return file.error();
  }
  auto parsed = parse(file->text, file->label);
  if (parsed && parsed->name != name) {
    return Error{file->label + ": key 'name' is \"" + parsed->name + "\", expected \"" + std::string(name) +
                 "\" (the file name)"};
  }
  return parsed;
}

}  // namespace dgx::catalog
