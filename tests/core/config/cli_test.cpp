#include <doctest/doctest.h>

#include <vector>

#include "dgx/core/config/cli.hpp"

using namespace dgx;

namespace {

Expected<CliOptions> parse(std::vector<const char*> args) {
  args.insert(args.begin(), "dgxhost");
  return parse_cli(static_cast<int>(args.size()), args.data());
}

}  // namespace

TEST_CASE("options parse into CliOptions") {
  auto o = parse({"--plugin", "spin", "--set", "spin.us=5", "-s", "spin.cases=2", "--mode", "measure", "--format",
                  "json", "-o", "out.json", "--plugin-dir", "/x", "--config", "a.toml", "-v"});
  REQUIRE(o);
  CHECK(o->plugin == "spin");
  CHECK(o->sets == std::vector<std::string>{"spin.us=5", "spin.cases=2"});
  CHECK(o->mode == RequestedMode::measure);
  CHECK(o->format == "json");
  CHECK(o->output == "out.json");
  CHECK(o->plugin_dirs == std::vector<std::string>{"/x"});
  CHECK(o->config_files == std::vector<std::string>{"a.toml"});
  CHECK(o->verbose == 1);
  CHECK(o->argv.size() == 18);
}

TEST_CASE("defaults: auto mode and a table on stdout") {
  auto o = parse({"--list"});
  REQUIRE(o);
  CHECK(o->list);
  CHECK(o->mode == RequestedMode::automatic);
  CHECK(to_string(o->mode) == "auto");
  CHECK(o->format == "table");
}

TEST_CASE("an unknown option is a usage error with a suggestion") {
  auto o = parse({"--plugins", "spin"});
  REQUIRE_FALSE(o);
  CHECK(o.error().code == ExitCode::usage);
  CHECK(o.error().message.find("did you mean '--plugin'") != std::string::npos);
}

// Found by tests/fuzz/fuzz_cli (corpus/cli/placeholder_hang): Boost's error message for this unknown option
// substituted %original_token% with itself, forever.
TEST_CASE("an argument holding an option-parser placeholder is a usage error, not a hang") {
  auto o = parse({"--p%original_token%", "-8M"});
  REQUIRE_FALSE(o);
  CHECK(o.error().code == ExitCode::usage);
  CHECK(o.error().message == "argument 1 contains '%original_token%', which the option parser cannot report on "
                             "(expected no such text)");
  CHECK_FALSE(parse({"--plugin", "x%value%"}));
  CHECK(parse({"--plugin", "50%"}));  // a lone '%' is fine
}

TEST_CASE("bad values and combinations are usage errors") {
  CHECK(parse({"--mode", "fast"}).error().message.find("expected auto, measure, project or explore") !=
        std::string::npos);
  CHECK(parse({"--format", "xml"}).error().code == ExitCode::usage);
  CHECK(parse({"--describe"}).error().message == "--describe needs --plugin NAME");
  CHECK_FALSE(parse({"stray"}));
}

TEST_CASE("help text mentions the exit codes") {
  CHECK(cli_help().find("Exit codes") != std::string::npos);
  CHECK(cli_help().find("--plugin") != std::string::npos);
}

TEST_CASE("--emit DIR names the folder of the workload's files, and --emit-launch DIR is its deprecated spelling") {
  auto o = parse({"--plugin", "llama70b-serve", "--emit", "deploy", "--set", "serve.isl=8000"});
  REQUIRE(o);
  CHECK(o->emit == "deploy");
  CHECK(o->sets == std::vector<std::string>{"serve.isl=8000"});
  auto old = parse({"--plugin", "llama70b-serve", "--emit-launch", "deploy"});
  REQUIRE(old);
  CHECK(old->emit == "deploy");
  CHECK(old->sets.empty());
  auto both = parse({"--plugin", "llama70b-serve", "--emit", "a", "--emit-launch", "b"});
  REQUIRE_FALSE(both);
  CHECK(both.error().message.find("name two folders") != std::string::npos);
}
