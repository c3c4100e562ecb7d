// Where dgxhost looks for plugins and for config data (presets, models, systems, pricing).
//
// Plugins, highest priority first: --plugin-dir (repeatable), DGX_PLUGIN_PATH (':'-separated), then the folder
// next to the executable: <exe>/../lib/dgx/plugins. The build tree mirrors the install tree, so the last one is
// the build tree's plugin folder when running from a build and <prefix>/lib/dgx/plugins when installed.
// Configs: DGX_CONFIG_PATH (':'-separated), then <exe>/../share/dgx/configs.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace dgx {

struct SearchPath {
  std::filesystem::path path;
  std::string origin;       // "--plugin-dir", "DGX_PLUGIN_PATH", "next to dgxhost", ...
  bool must_exist = false;  // given explicitly by the user: a missing one deserves a warning
};

/// The directory holding the running executable.
std::filesystem::path executable_directory();

std::vector<SearchPath> plugin_search_paths(const std::vector<std::string>& plugin_dirs, const char* env_value,
                                            const std::filesystem::path& exe_dir);

std::vector<SearchPath> config_search_paths(const std::vector<std::string>& config_dirs, const char* env_value,
                                            const std::filesystem::path& exe_dir);

/// Finds `relative` (e.g. "systems/h100-sxm.toml") in the first config directory that has it; empty if none.
std::filesystem::path find_in(const std::vector<SearchPath>& paths, const std::filesystem::path& relative);

}  // namespace dgx
