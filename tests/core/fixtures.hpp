// Paths of the fixture plugins built by tests/fixtures (directories passed in by CMake).
#pragma once

#include <filesystem>

namespace dgx::testing {

inline std::filesystem::path fixture(const char* relative) {
  return std::filesystem::path(DGX_TEST_FIXTURE_DIR) / relative;
}
inline std::filesystem::path spin_plugin() { return std::filesystem::path(DGX_TEST_PLUGIN_DIR) / "libdgx-spin.so"; }

}  // namespace dgx::testing
