// What the name after --plugin resolves to: a preset, a workload or a plugin.
#include <doctest/doctest.h>

#include "dgx/core/app/plugin_option.hpp"
#include "fixtures.hpp"
#include "registry_fixture.hpp"
#include "temp_dir.hpp"

using namespace dgx;
using dgx::testing::discover;
using dgx::testing::fixture;

TEST_CASE("names resolve to workloads: qualified, workload, plugin") {
  const PluginRegistry r = discover({fixture("good"), DGX_TEST_PLUGIN_DIR});
  CHECK(resolve_name(r, "spin")->workload->name == "spin");
  CHECK(resolve_name(r, "throw")->plugin->name == "thrower");
  CHECK(resolve_name(r, "thrower")->workload->name == "throw");  // a plugin with one workload
  CHECK(resolve_name(r, "thrower:throw")->workload->name == "throw");
  CHECK(resolve_name(r, "thrower:nope").error().code == ExitCode::no_plugin);
}

TEST_CASE("an unknown name lists the close matches") {
  const PluginRegistry r = discover({fixture("good"), DGX_TEST_PLUGIN_DIR});
  auto target = resolve_name(r, "spni");
  REQUIRE_FALSE(target);
  CHECK(target.error().code == ExitCode::no_plugin);
  CHECK(target.error().message.find("no plugin, workload or preset named 'spni'; did you mean 'spin'?") == 0);
}

TEST_CASE("a name that belongs to a rejected file says why it was rejected") {
  const PluginRegistry r = discover({fixture("broken")});
  auto target = resolve_name(r, "future-abi");
  REQUIRE_FALSE(target);
  CHECK(target.error().message.find("was found but rejected") != std::string::npos);
  CHECK(target.error().message.find("ABI 2.0") != std::string::npos);
}

TEST_CASE("a workload offered by two plugins must be qualified") {
  const PluginRegistry r = discover({fixture("good"), fixture("duplicate")});  // cplain and twin both offer cplain
  auto target = resolve_name(r, "cplain");
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
  auto target = resolve_name(r, "spin-fast");
  REQUIRE(target);
  CHECK(target->workload->name == "spin");
  REQUIRE(target->preset != nullptr);
  CHECK(target->preset->summary == "tiny spins");
  auto orphan = resolve_name(r, "orphan");
  REQUIRE_FALSE(orphan);
  CHECK(orphan.error().message.find("preset 'orphan' runs workload 'no-such-workload'") == 0);
  REQUIRE(r.warnings().size() == 1);
  CHECK(r.warnings()[0].find("broken.toml") != std::string::npos);
}
