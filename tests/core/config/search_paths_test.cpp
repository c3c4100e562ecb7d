#include <doctest/doctest.h>

#include "dgx/core/config/search_paths.hpp"
#include "temp_dir.hpp"

using namespace dgx;

TEST_CASE("plugin directories: --plugin-dir, then DGX_PLUGIN_PATH, then next to the executable") {
  const auto paths = plugin_search_paths({"/a", "/b"}, "/c::/d", "/opt/dgx/bin");
  REQUIRE(paths.size() == 5);
  CHECK(paths[0].path == "/a");
  CHECK(paths[0].must_exist);
  CHECK(paths[2].path == "/c");
  CHECK(paths[2].origin == "DGX_PLUGIN_PATH");
  CHECK(paths[3].path == "/d");
  CHECK(paths[4].path == "/opt/dgx/lib/dgx/plugins");
  CHECK_FALSE(paths[4].must_exist);
}

TEST_CASE("config directories end with share/dgx/configs next to the executable") {
  const auto paths = config_search_paths({}, nullptr, "/opt/dgx/bin");
  REQUIRE(paths.size() == 1);
  CHECK(paths[0].path == "/opt/dgx/share/dgx/configs");
}

TEST_CASE("find_in returns the first directory holding the file") {
  testing::TempDir first, second;
  second.write("models/x.toml", "a = 1\n");
  const std::vector<SearchPath> paths{{first.path(), "t", true}, {second.path(), "t", true}};
  CHECK(find_in(paths, "models/x.toml") == second.path() / "models/x.toml");
  first.write("models/x.toml", "a = 2\n");
  CHECK(find_in(paths, "models/x.toml") == first.path() / "models/x.toml");
  CHECK(find_in(paths, "models/none.toml").empty());
}

TEST_CASE("the executable directory is where this test runs from") {
  CHECK(std::filesystem::exists(executable_directory()));
}
