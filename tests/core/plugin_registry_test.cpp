#include <doctest/doctest.h>

#include "broken_fixtures.hpp"
#include "dgx/core/plugin_registry.hpp"
#include "fixtures.hpp"
#include "temp_dir.hpp"

using namespace dgx;
using dgx::testing::fixture;

namespace {

PluginRegistry discover(const std::vector<std::filesystem::path>& dirs) {
  std::vector<SearchPath> paths;
  for (auto& d : dirs) paths.push_back({d, "test", true});
  PluginRegistry registry;
  registry.discover(paths, {});
  return registry;
}

}  // namespace

TEST_CASE("broken plugins are rejected one by one while good ones load") {
  const PluginRegistry r = discover({fixture("broken"), fixture("good"), DGX_TEST_PLUGIN_DIR});
  for (const char* name : {"cplain", "thrower", "spin"}) CHECK(r.find_plugin(name) != nullptr);
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

TEST_CASE("names resolve to workloads: qualified, workload, plugin") {
  const PluginRegistry r = discover({fixture("good"), DGX_TEST_PLUGIN_DIR});
  CHECK(r.resolve("spin")->workload->name == "spin");
  CHECK(r.resolve("throw")->plugin->name == "thrower");
  CHECK(r.resolve("thrower")->workload->name == "throw");  // a plugin with one workload
  CHECK(r.resolve("thrower:throw")->workload->name == "throw");
  CHECK(r.resolve("thrower:nope").error().code == ExitCode::no_plugin);
}

TEST_CASE("an unknown name lists the close matches") {
  const PluginRegistry r = discover({fixture("good"), DGX_TEST_PLUGIN_DIR});
  auto target = r.resolve("spni");
  REQUIRE_FALSE(target);
  CHECK(target.error().code == ExitCode::no_plugin);
  CHECK(target.error().message.find("no plugin, workload or preset named 'spni'; did you mean 'spin'?") == 0);
}

TEST_CASE("a name that belongs to a rejected file says why it was rejected") {
  const PluginRegistry r = discover({fixture("broken")});
  auto target = r.resolve("future-abi");
  REQUIRE_FALSE(target);
  CHECK(target.error().message.find("was found but rejected") != std::string::npos);
  CHECK(target.error().message.find("ABI 2.0") != std::string::npos);
}

TEST_CASE("a workload offered by two plugins must be qualified") {
  const PluginRegistry r = discover({fixture("good"), fixture("duplicate")});  // cplain and twin both offer cplain
  auto target = r.resolve("cplain");
  REQUIRE_FALSE(target);
  CHECK(target.error().code == ExitCode::usage);
  CHECK(target.error().message.find("cplain:cplain or twin:cplain") != std::string::npos);
}

TEST_CASE("preset files resolve to their workload and override nothing else") {
  testing::TempDir configs;
  configs.write("workloads/spin-fast.toml",
                "preset.workload = \"spin\"\npreset.summary = \"tiny spins\"\nspin.us = 10\n");
  configs.write("workloads/orphan.toml", "preset.workload = \"no-such-workload\"\n");
  configs.write("workloads/broken.toml", "this is not toml =\n");
  PluginRegistry r = discover({DGX_TEST_PLUGIN_DIR});
  r.add_preset_files({{configs.path(), "test", true}});
  auto target = r.resolve("spin-fast");
  REQUIRE(target);
  CHECK(target->workload->name == "spin");
  REQUIRE(target->preset != nullptr);
  CHECK(target->preset->summary == "tiny spins");
  auto orphan = r.resolve("orphan");
  REQUIRE_FALSE(orphan);
  CHECK(orphan.error().message.find("preset 'orphan' runs workload 'no-such-workload'") == 0);
  REQUIRE(r.warnings().size() == 1);
  CHECK(r.warnings()[0].find("broken.toml") != std::string::npos);
}
