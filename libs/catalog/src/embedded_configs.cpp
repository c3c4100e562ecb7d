#include "dgx/catalog/embedded_configs.hpp"

namespace dgx::catalog {

std::optional<std::string_view> embedded_config(std::string_view path) {
  for (const EmbeddedFile& file : embedded_configs()) {
    if (file.path == path) {
      return file.text;
    }
  }
  return std::nullopt;
}

}  // namespace dgx::catalog
