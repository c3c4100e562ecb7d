// A plugin registry of the plugins in the given directories (or files), for the tests of what it loads and of what
// the names after --plugin resolve to.
#pragma once

#include <filesystem>
#include <vector>

#include "dgx/core/plugin/plugin_registry.hpp"

namespace dgx::testing {

inline PluginRegistry discover(const std::vector<std::filesystem::path>& dirs) {
  std::vector<SearchPath> paths;
  for (const auto& d : dirs) {
    paths.push_back({d, "test", true});
  }
  PluginRegistry registry;
  registry.discover(paths, {});
  return registry;
}

}  // namespace dgx::testing
