// A plugin's copy of the catalog searches the folders its host searches (--config-dir, DGX_CONFIG_PATH, the
// install's configs), so a model or system a user keeps in a config folder is found by every plugin as by the host.
#pragma once

#include <dgx/sdk/host.hpp>

#include "dgx/catalog/catalog_files.hpp"

#include <utility>
#include <vector>

namespace dgx::catalog {

/// Sets this library copy's search folders to the host's (none on a host of ABI 1.0: the compiled-in copy only).
inline void search_host_dirs(const sdk::Host& host) {
  std::vector<SearchDir> dirs;
  for (sdk::Host::ConfigDir& dir : host.config_dirs()) {
    dirs.push_back(SearchDir{.path = std::move(dir.path), .origin = std::move(dir.origin)});
  }
  set_search_dirs(std::move(dirs));
}

}  // namespace dgx::catalog
