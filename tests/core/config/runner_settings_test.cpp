// The runner.* keys: their range checks say what was given and where it came from.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "dgx/core/config/runner_settings.hpp"
#include "dgx/core/config/toml_reader.hpp"
#include "temp_dir.hpp"

using namespace dgx;

namespace {

// The runner's keys resolved from `layer`; the schema is returned too, as the resolution points into it.
struct Resolved {
  std::vector<ParamSpec> schema = RunnerSettings::params();
  ConfigResolution resolution;

  explicit Resolved(const ConfigLayer& layer) : resolution(resolve_config(schema, {&layer})) {
    REQUIRE(resolution.errors.empty());
  }
};

ConfigLayer sets(const std::vector<std::string>& arguments) {
  ConfigLayer layer{"--set", {}};
  for (const std::string& a : arguments) {
    layer.entries.push_back(parse_set_argument(a).value());
  }
  return layer;
}

}  // namespace

TEST_CASE("runner settings are validated") {
  const Resolved r(sets({"runner.min_samples=0", "runner.max_time=0"}));
  auto settings = RunnerSettings::from(r.resolution.config);
  REQUIRE_FALSE(settings);
  CHECK(settings.error().code == ExitCode::usage);
  CHECK(settings.error().message.find("runner.min_samples must be >= 1, got 0 (--set runner.min_samples=0)") !=
        std::string::npos);
  CHECK(settings.error().message.find("runner.max_time must be a finite number > 0, got 0.0") != std::string::npos);
}

TEST_CASE("range errors of runner settings give the value and where it came from, infinities included") {
  testing::TempDir dir;
  const auto file = dir.write("run.toml", "runner.max_time = -inf\nrunner.batch = 0\n");
  const auto layer = load_toml_config(file.string(), "config file");
  REQUIRE(layer);
  const Resolved r(layer->layer);
  auto settings = RunnerSettings::from(r.resolution.config);
  REQUIRE_FALSE(settings);
  const std::string& m = settings.error().message;
  CHECK(m.find("runner.max_time must be a finite number > 0, got -inf (" + file.string() + ":1:19)") !=
        std::string::npos);
  CHECK(m.find("runner.batch must be in 1..1000000000, got 0 (" + file.string() + ":2:16)") != std::string::npos);
}
