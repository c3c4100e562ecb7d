#include "dgx/core/config/search_paths.hpp"

#include <boost/dll/runtime_symbol_info.hpp>

#include "dgx/core/support/text.hpp"

#ifndef DGX_RELATIVE_PLUGIN_DIR
#error "DGX_RELATIVE_PLUGIN_DIR must be defined by the build (core/CMakeLists.txt)"
#endif
#ifndef DGX_RELATIVE_CONFIG_DIR
#error "DGX_RELATIVE_CONFIG_DIR must be defined by the build (core/CMakeLists.txt)"
#endif

namespace dgx {

namespace {

void append_env(std::vector<SearchPath>& out, const char* env_value, const char* env_name) {
  if (env_value == nullptr) {
    return;
  }
  for (const std::string& part : text::split(env_value, ':')) {
    if (!part.empty()) {
      out.push_back({part, env_name, true});
    }
  }
}

}  // namespace

std::filesystem::path executable_directory() {
  boost::dll::fs::error_code ec;
  const auto location = boost::dll::program_location(ec);
  if (ec) {
    return std::filesystem::current_path();
  }
  return std::filesystem::path(location.native()).parent_path();
}

std::vector<SearchPath> plugin_search_paths(const std::vector<std::string>& plugin_dirs, const char* env_value,
                                            const std::filesystem::path& exe_dir) {
  std::vector<SearchPath> out;
  for (const std::string& dir : plugin_dirs) {
    out.push_back({dir, "--plugin-dir", true});
  }
  append_env(out, env_value, "DGX_PLUGIN_PATH");
  out.push_back({(exe_dir / DGX_RELATIVE_PLUGIN_DIR).lexically_normal(), "next to dgxhost", false});
  return out;
}

std::vector<SearchPath> config_search_paths(const std::vector<std::string>& config_dirs, const char* env_value,
                                            const std::filesystem::path& exe_dir) {
  std::vector<SearchPath> out;
  for (const std::string& dir : config_dirs) {
    out.push_back({dir, "--config-dir", true});
  }
  append_env(out, env_value, "DGX_CONFIG_PATH");
  out.push_back({(exe_dir / DGX_RELATIVE_CONFIG_DIR).lexically_normal(), "next to dgxhost", false});
  return out;
}

std::filesystem::path find_in(const std::vector<SearchPath>& paths, const std::filesystem::path& relative) {
  std::error_code ec;
  for (const SearchPath& p : paths) {
    const auto candidate = p.path / relative;
    if (std::filesystem::is_regular_file(candidate, ec)) {
      return std::filesystem::absolute(candidate, ec);
    }
  }
  return {};
}

}  // namespace dgx
