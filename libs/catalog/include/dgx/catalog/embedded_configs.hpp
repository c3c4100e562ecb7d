// The repository's configs/ TOML files, compiled into the library (cmake/DgxEmbed.cmake), so catalogs load
// without files on disk.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace dgx::catalog {

struct EmbeddedFile {
  std::string_view path;  ///< relative to configs/, e.g. "models/llama3.1-8b.toml"
  std::string_view text;
};

/// Every embedded file, in the order the build listed them.
std::span<const EmbeddedFile> embedded_configs();

/// The text of one embedded file, by its path relative to configs/.
[[nodiscard]] std::optional<std::string_view> embedded_config(std::string_view path);

}  // namespace dgx::catalog
