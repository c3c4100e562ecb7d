// Internal: the embedded files of one catalog folder (e.g. "models/"), by entry name.
#pragma once

#include "dgx/llm/embedded_configs.hpp"
#include "dgx/llm/expected.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace dgx::llm::detail {

/// Up to `limit` names of `candidates` close to `name`, best first: by edit distance of the names reduced to
/// lower-case letters and digits, about one edit in three characters (at least one), or one containing the other.
[[nodiscard]] std::vector<std::string> close_names(std::string_view name, const std::vector<std::string>& candidates,
                                                   std::size_t limit = 3);

/// "unknown <noun> 'name'; did you mean 'a' or 'b'? the catalog has: ...".
[[nodiscard]] std::string unknown_entry(std::string_view noun, std::string_view name,
                                        const std::vector<std::string>& known);

/// Entry names (file stems) of the .toml files directly under `folder` ("models"), sorted.
[[nodiscard]] std::vector<std::string> catalog_names(std::string_view folder);

/// The embedded file folder/name.toml, or an error naming the `noun` ("model") and listing the known names.
[[nodiscard]] Expected<EmbeddedFile> catalog_file(std::string_view folder, std::string_view noun,
                                                  std::string_view name);

/// Runs `parse(text, path)` (returning Expected<T>) on an entry and checks that the file's `name` matches.
template <class Parse>
auto load_catalog_entry(std::string_view folder, std::string_view noun, std::string_view name, Parse parse)
    -> decltype(parse(std::string_view{}, std::string_view{})) {
  auto file = catalog_file(folder, noun, name);
  if (!file) {
    return file.error();
  }
  auto parsed = parse(file->text, std::string("configs/") + std::string(file->path));
  if (parsed && parsed->name != name) {
    return Error{"configs/" + std::string(file->path) + ": key 'name' is \"" + parsed->name + "\", expected \"" +
                 std::string(name) + "\" (the file name)"};
  }
  return parsed;
}

}  // namespace dgx::llm::detail
