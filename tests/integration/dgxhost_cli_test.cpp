// The command line as users meet it: help, version, listing, describing, unknown names, exit codes.
#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>

#include "broken_fixtures.hpp"
#include "dgx/json/json.hpp"
#include "dgxhost.hpp"
#include "temp_dir.hpp"

using namespace dgx;
using namespace dgx::testing;

TEST_CASE("--help and --version exit 0") {
  ProcessResult r = dgxhost({"--help"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("--plugin") != std::string::npos);
  r = dgxhost({"--version"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("dgxhost 0.") == 0);
  CHECK(r.out.find("plugin ABI 1.0") != std::string::npos);
}

TEST_CASE("bad options are usage errors (exit 2) on stderr") {
  const ProcessResult r = dgxhost({"--plugn", "spin"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("did you mean '--plugin'") != std::string::npos);
  CHECK(dgxhost({}).exit_code == 2);
}

TEST_CASE("--list shows plugins with version, ABI, workloads, kind and modes") {
  const ProcessResult r = dgxhost({"--list"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("spin 1.0.0  ABI 1.3") != std::string::npos);
  CHECK(r.out.find("- spin  [micro; measure; -]") != std::string::npos);
}

TEST_CASE("--list --format json is machine-readable") {
  const ProcessResult r = dgxhost({"--list", "--format", "json", "--plugin-dir", fixture_dir("broken")});
  REQUIRE(r.exit_code == 0);
  const json::Value doc = json::parse(r.out);
  CHECK(doc["rejected"].as_array().size() == kBrokenFixtures.size());
  bool found_spin = false;
  for (const json::Value& p : doc["plugins"].as_array()) {
    found_spin |= p["name"].as_string() == "spin";
  }
  CHECK(found_spin);
}

TEST_CASE("--describe shows parameters with types, defaults and help") {
  const ProcessResult r = dgxhost({"--plugin", "spin", "--describe", "--set", "spin.us=7"}, {{"COLUMNS", "0"}});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("spin.us") != std::string::npos);
  CHECK(r.out.find("busy-wait time per iteration [us]") != std::string::npos);
  CHECK(r.out.find("7 (--set spin.us=7)") != std::string::npos);
  CHECK(r.out.find("runner.min_time") != std::string::npos);
}

TEST_CASE("--describe wraps its help column to the terminal's width, and the notes of a run wrap too") {
  const ProcessResult r =
      dgxhost({"--plugin", "all_reduce", "--describe", "--set", "comm.max_bytes=1M"}, {{"COLUMNS", "100"}});
  CHECK(r.exit_code == 0);
  std::size_t widest = 0;
  for (std::size_t start = 0; start < r.out.size();) {
    const std::size_t end = std::min(r.out.find('\n', start), r.out.size());
    widest = std::max(widest, end - start);
    start = end + 1;
  }
  CHECK(widest <= 100);
  CHECK(r.out.find("[set by --set comm.max_bytes=1M]") != std::string::npos);
  // COLUMNS=0, for a script: one line per parameter (a pipe without COLUMNS wraps at 100 for a reader)
  const ProcessResult piped = dgxhost({"--plugin", "all_reduce", "--describe"}, {{"COLUMNS", "0"}});
  CHECK(piped.out.find("largest message size (nccl-tests -e) [B] (64K, 1M, 2G, 1T accepted)") != std::string::npos);
}

TEST_CASE("--describe shows what the workload declares of its rows: metrics and their direction, identity, charts") {
  const ProcessResult r = dgxhost({"--plugin", "all_reduce", "--describe"}, {{"COLUMNS", "0"}});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("Metrics (how compare and history judge them):") != std::string::npos);
  CHECK(r.out.find("busbw") != std::string::npos);
  CHECK(r.out.find("higher") != std::string::npos);
  CHECK(r.out.find("Identity (a run of another value of these keys is another series; other keys are context): "
                   "comm.collective, comm.dtype") != std::string::npos);
  CHECK(r.out.find("Charts (HTML report): Bus bandwidth against message size") != std::string::npos);
  const ProcessResult json = dgxhost({"--plugin", "all_reduce", "--describe", "--format", "json"});
  REQUIRE(json.exit_code == 0);
  CHECK(json.out.find("\"declarations\"") != std::string::npos);
}

TEST_CASE("--describe says which keys take size suffixes, and a suffix elsewhere says how sizes work") {
  const ProcessResult sizes = dgxhost({"--plugin", "all_reduce", "--describe"}, {{"COLUMNS", "0"}});
  CHECK(sizes.exit_code == 0);
  CHECK(sizes.out.find("largest message size (nccl-tests -e) [B] (64K, 1M, 2G, 1T accepted)") != std::string::npos);
  const ProcessResult elsewhere = dgxhost({"--plugin", "spin", "--set", "spin.us=2K"});
  CHECK(elsewhere.exit_code == 2);
  CHECK(elsewhere.err.find("size suffixes (K, M, G, T) are accepted only by keys in bytes (unit B)") !=
        std::string::npos);
}

TEST_CASE("an unknown plugin name lists close matches and exits 3") {
  const ProcessResult r = dgxhost({"--plugin", "spni"});
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("did you mean 'spin'?") != std::string::npos);
}

TEST_CASE("an unknown config key exits with the config-error code and names the key") {
  const ProcessResult r = dgxhost({"--plugin", "spin", "--set", "spin.nosuchkey=1"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("spin.nosuchkey") != std::string::npos);
  CHECK(r.err.find("did you mean 'spin.us'") != std::string::npos);
  CHECK(r.out.empty());
}

TEST_CASE("an invalid value reported by the plugin is a config error") {
  const ProcessResult r = dgxhost({"--plugin", "spin", "--set", "spin.us=-1"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("spin.us must be in 0..4398046511104, got -1") != std::string::npos);
}

TEST_CASE("launch checks the plugin and the whole configuration before writing anything, like a local run") {
  TempDir dir;
  const auto out = dir.path() / "runs";
  ProcessResult r = dgxhost({"launch", "--nodes", "1", "--output-dir", out.string(), "--plugin", "all_reduc"});
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("did you mean 'all_reduce'") != std::string::npos);
  r = dgxhost({"launch", "--nodes", "1", "--output-dir", out.string(), "--plugin", "all_reduce", "--set", "nope=1"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("unknown config key 'nope'") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("launch --dry-run prints the script and writes nothing") {
  TempDir dir;
  const auto out = dir.path() / "runs";
  const ProcessResult r = dgxhost({"launch", "--nodes", "1", "--gpus-per-node", "0", "--output-dir", out.string(),
                                   "--dry-run", "--plugin", "spin"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("#!/bin/bash\n") == 0);
  CHECK(r.out.find("srun --mpi=pmix") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("a misspelt command gets the command it most likely means, and the list of commands") {
  const ProcessResult history = dgxhost({"histroy"});
  CHECK(history.exit_code == 2);
  CHECK(history.err.find("unknown command 'histroy'; did you mean 'history'?") != std::string::npos);
  CHECK(history.err.find("The commands: launch, compare, verdict, import, store, history, model, report") !=
        std::string::npos);
  CHECK(dgxhost({"reprot", "results.json"}).err.find("did you mean 'report'?") != std::string::npos);
  const ProcessResult import = dgxhost({"imprt", "x.log"});
  CHECK(import.exit_code == 2);
  CHECK(import.err.find("did you mean 'import'?") != std::string::npos);
  CHECK(dgxhost({"nonsense"}).err.find("a run is dgxhost --plugin NAME") != std::string::npos);
}

TEST_CASE("a command's --help lists the options a user types, not its positional arguments' internal names") {
  for (const char* command : {"import", "compare", "store", "history", "verdict"}) {
    CAPTURE(command);
    const ProcessResult help = dgxhost({command, "--help"});
    CHECK(help.exit_code == 0);
    CHECK(help.out.find("--files") == std::string::npos);
    CHECK(help.out.find("--action") == std::string::npos);
    CHECK(help.out.find("--config-dir") != std::string::npos);
  }
}

TEST_CASE("--describe into a pipe wraps for a reader at 100 columns, the help under each row where it must") {
  const ProcessResult r = dgxhost({"--plugin-dir", DGX_TEST_PLUGIN_DIR, "--plugin", "spin", "--describe"});
  REQUIRE(r.exit_code == 0);
  const auto widest = [](const std::string& text) {
    std::istringstream lines(text);
    std::size_t most = 0;
    for (std::string line; std::getline(lines, line);) {
      most = std::max(most, line.size());
    }
    return most;
  };
  CHECK(widest(r.out) <= 100);
  // A model's parameters have wide defaults ("llama3.1-8b"): too little room is left beside them for the help, which
  // goes under each row, indented (it was 117 columns wide).
  const ProcessResult model = dgxhost({"--plugin-dir", DGX_TEST_PLUGIN_DIR, "--plugin", "llama70b", "--describe"});
  REQUIRE(model.exit_code == 0);
  CHECK(widest(model.out) <= 100);
  CHECK(model.out.find("\nmodel ") != std::string::npos);
  CHECK(model.out.find("\n    model to train, from the model catalog") != std::string::npos);
  const ProcessResult unwrapped = dgxhost({"--plugin-dir", DGX_TEST_PLUGIN_DIR, "--plugin", "spin", "--describe"},
                                          {{"COLUMNS", "0"}});  // COLUMNS=0 still asks for no wrapping
  CHECK(std::count(unwrapped.out.begin(), unwrapped.out.end(), '\n') < std::count(r.out.begin(), r.out.end(), '\n'));
}
