#include <doctest/doctest.h>

#include "broken_fixtures.hpp"
#include "dgx/core/plugin/plugin_registry.hpp"
#include "fixtures.hpp"
#include "registry_fixture.hpp"

using namespace dgx;
using dgx::testing::discover;
using dgx::testing::fixture;

TEST_CASE("broken plugins are rejected one by one while good ones load") {
  const PluginRegistry r = discover({fixture("broken"), fixture("good"), DGX_TEST_PLUGIN_DIR});
  for (const char* name : {"cplain", "thrower", "spin"}) {
    CHECK(r.find_plugin(name) != nullptr);
  }
  CHECK(r.rejections().size() == testing::kBrokenFixtures.size());
  for (const PluginRejection& rejection : r.rejections()) {
    CHECK(rejection.line().find(rejection.file.string() + ": ") == 0);
    CHECK(rejection.file.parent_path().filename() == "broken");
  }
  CHECK(r.find_plugin("spin") != nullptr);
}

TEST_CASE("the second plugin of a name is rejected, naming the first") {
  const PluginRegistry r = discover({fixture("duplicate")});
  REQUIRE(r.plugins().size() == 1);
  REQUIRE(r.rejections().size() == 1);
  CHECK(r.rejections()[0].reason.find("duplicate plugin name 'twin': already loaded from ") == 0);
  CHECK(r.rejections()[0].file.filename() == "libdgx-twin-b.so");
}

TEST_CASE("a missing explicit directory is a warning, and a file may be named directly") {
  const PluginRegistry r = discover({"/nonexistent/plugins", testing::spin_plugin()});
  CHECK(r.plugins().size() == 1);
  REQUIRE(r.warnings().size() == 1);
  CHECK(r.warnings()[0].find("/nonexistent/plugins") != std::string::npos);
}

TEST_CASE("the same file reached twice is loaded once") {
  const PluginRegistry once = discover({DGX_TEST_PLUGIN_DIR});
  const PluginRegistry twice = discover({DGX_TEST_PLUGIN_DIR, DGX_TEST_PLUGIN_DIR});
  CHECK(twice.plugins().size() == once.plugins().size());
  CHECK(twice.rejections().empty());
}
