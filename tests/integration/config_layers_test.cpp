// Presets, config files and --set, end to end.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include "dgx/json/json.hpp"
#include "dgxhost.hpp"
#include "temp_dir.hpp"

using namespace dgx;
using namespace dgx::testing;

TEST_CASE("precedence: preset < --config file < --set, and the results record each key's source") {
  TempDir configs;
  configs.write("workloads/spin-preset.toml",
                "preset.workload = \"spin\"\npreset.summary = \"test preset\"\nspin.us = 100\nspin.cases = 2\n"
                "runner.min_time = 0.02\nrunner.min_samples = 5\n");
  const auto file = configs.write("run.toml", "spin.cases = 1\nspin.us = 300\n");
  const ProcessResult r =
      dgxhost({"--plugin", "spin-preset", "--config", file.string(), "--set", "spin.us=200", "--format", "json"},
              {{"DGX_CONFIG_PATH", configs.path().string()}});
  REQUIRE(r.exit_code == 0);
  const json::Value doc = json::parse(r.out);
  const json::Value& c = doc["context"];
  CHECK(c["preset"].as_string() == "spin-preset");
  CHECK(c["config"]["spin.us"].as_int() == 200);
  CHECK(c["config"]["spin.cases"].as_int() == 1);
  CHECK(c["config_sources"]["spin.us"].as_string() == "--set spin.us=200");
  CHECK(c["config_sources"]["spin.cases"].as_string() == file.string() + ":1:14");
  CHECK(c["config_sources"]["runner.min_time"].as_string().find("spin-preset.toml:5:") != std::string::npos);
}

TEST_CASE("a preset appears in --list with its source") {
  TempDir configs;
  configs.write("workloads/spin-preset.toml", "preset.workload = \"spin\"\npreset.summary = \"test preset\"\n");
  const ProcessResult r = dgxhost({"--list"}, {{"DGX_CONFIG_PATH", configs.path().string()}});
  CHECK(r.out.find("spin-preset -> spin  test preset") != std::string::npos);
}

TEST_CASE("a config file's type error names file:line:col, the key and the expected type") {
  TempDir dir;
  const auto file = dir.write("bad.toml", "# comment\nspin.us = \"fast\"\n");
  const ProcessResult r = dgxhost({"--plugin", "spin", "--config", file.string()});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("config key 'spin.us' expects an integer, got string \"fast\" (" + file.string() + ":2:11)") !=
        std::string::npos);
}

TEST_CASE("every error of a config file is a line of its own with the error prefix, the second key's too") {
  TempDir dir;
  const auto file = dir.write("bad.toml", "spin.us = \"fast\"\nspin.nope = 3\n");
  const ProcessResult r = dgxhost({"--plugin", "spin", "--config", file.string()});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("dgxhost: error: config key 'spin.us' expects an integer") != std::string::npos);
  CHECK(r.err.find("\ndgxhost: error: unknown config key 'spin.nope' (" + file.string() + ":2:") != std::string::npos);
  CHECK(r.out.empty());  // no banner after a configuration error
}

TEST_CASE("a config file with a [preset] workload needs no --plugin") {
  TempDir dir;
  const auto file = dir.write(
      "run.toml", "preset.workload = \"spin\"\nspin.us = 50\nrunner.min_time = 0.01\nrunner.min_samples = 3\n");
  const ProcessResult r = dgxhost({"--config", file.string(), "--format", "json"});
  REQUIRE(r.exit_code == 0);
  CHECK(json::parse(r.out)["context"]["config"]["spin.us"].as_int() == 50);
}

TEST_CASE("invalid TOML in a config file is a usage error with its location") {
  TempDir dir;
  const auto file = dir.write("broken.toml", "spin.us = = 3\n");
  const ProcessResult r = dgxhost({"--plugin", "spin", "--config", file.string()});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(file.string() + ":1:") != std::string::npos);
}
