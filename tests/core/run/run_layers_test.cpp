// The layers of one run's configuration and the schema they are checked against.
#include <doctest/doctest.h>

#include <algorithm>

#include "dgx/core/run/run_layers.hpp"
#include "fixtures.hpp"

using namespace dgx;

namespace {

std::unique_ptr<LoadedPlugin> spin() { return std::move(load_plugin(testing::spin_plugin(), {}).value()); }

}  // namespace

TEST_CASE("a measuring workload's schema has its own keys, then the runner's") {
  const auto plugin = spin();
  const std::vector<ParamSpec> schema = schema_for(plugin->workloads[0]);
  CHECK(schema.front().key == "spin.us");
  CHECK(std::any_of(schema.begin(), schema.end(), [](const ParamSpec& p) { return p.key == "runner.batch"; }));
}

TEST_CASE("--set arguments become the last layer, in order") {
  CliOptions options;
  options.sets = {"spin.us=5", "spin.cases=2"};
  auto layers = read_layers(options, nullptr);
  REQUIRE(layers);
  REQUIRE(layers->storage.size() == 1);
  CHECK(layers->storage.back().name == "--set");
  CHECK(layers->storage.back().entries.size() == 2);
  options.sets = {"no-equals-sign"};
  CHECK_FALSE(read_layers(options, nullptr));
}

TEST_CASE("a one-letter option the workload does not define lists the ones it does") {
  const auto plugin = spin();
  CliOptions options;
  options.aliases = {{"b", "8"}};
  auto entries = alias_entries(options, plugin->workloads[0]);
  REQUIRE_FALSE(entries);
  CHECK(entries.error().code == ExitCode::usage);
  CHECK(entries.error().message.find("unknown option -b for workload spin (it has no one-letter options)") == 0);
}
