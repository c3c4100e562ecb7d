// A user's own catalog folder (--config-dir) reaches every command that reads the catalog: a run, verdict, import,
// store add, compare, history and the platform check all find a system that only that folder has (issue 35).
#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "dgx/json/json.hpp"
#include "dgxhost.hpp"
#include "temp_dir.hpp"

using namespace dgx;
using namespace dgx::testing;

namespace {

/// A config folder with systems/h100-ours.toml: an H100 SXM of our own (a 600 W cap), known to no other folder.
void write_own_system(const TempDir& dir) {
  (void)dir.write("systems/h100-ours.toml", "name = \"h100-ours\"\ninherits = \"h100-sxm\"\n"
                                            "display = \"our H100 SXM at 600 W\"\nsource = \"our datasheet\"\n"
                                            "[gpu]\npower_cap_w = 600\n");
}

}  // namespace

TEST_CASE("a system of a --config-dir folder is found by verdict, import, store add, compare and history") {
  TempDir dir;
  write_own_system(dir);
  const std::string config_dir = dir.path().string();
  const std::string log = std::string(DGX_TEST_IMPORT_DATA) + "/torchtitan/llama3_8b.log";

  // verdict: the log names an H100; --set system= narrows it to our variant of it.
  const ProcessResult verdict =
      dgxhost({"verdict", log, "-q", "--config-dir", config_dir, "--set", "system=h100-ours"});
  CAPTURE(verdict.err);
  CHECK((verdict.exit_code == 0 || verdict.exit_code == 5));
  CHECK(verdict.out.find("h100-ours") != std::string::npos);
  // Without the folder the same command names the system as unknown, with the one wording of every command.
  const ProcessResult without = dgxhost({"verdict", log, "-q", "--set", "system=h100-ours"});
  CHECK(without.exit_code == 2);
  CHECK(without.err.find("unknown system 'h100-ours'") != std::string::npos);

  // import
  const std::string imported = (dir.path() / "imported.json").string();
  const ProcessResult import =
      dgxhost({"import", log, "--config-dir", config_dir, "--set", "system=h100-ours", "-o", imported});
  REQUIRE_MESSAGE(import.exit_code == 0, import.err);
  std::ifstream file(imported);
  const json::Value doc = json::parse(std::string(std::istreambuf_iterator<char>(file), {}));
  CHECK(doc["results"][0]["config"]["system"].as_string() == "h100-ours");

  // store add of the log, then history over that store
  const std::string store = (dir.path() / "store.sqlite").string();
  const ProcessResult added =
      dgxhost({"store", "add", log, "--store", store, "--config-dir", config_dir, "--set", "system=h100-ours"});
  CHECK_MESSAGE(added.exit_code == 0, added.err);
  const ProcessResult history = dgxhost({"history", "--store", store, "--config-dir", config_dir});
  CHECK_MESSAGE(history.exit_code == 0, history.err);
  CHECK(history.out.find("h100-ours") != std::string::npos);

  // compare: the option is accepted as by every command, and a folder that is not one is refused naming it
  const ProcessResult compare = dgxhost({"compare", imported, imported, "--config-dir", config_dir});
  CHECK_MESSAGE(compare.exit_code == 0, compare.err);
  const ProcessResult missing = dgxhost({"compare", imported, imported, "--config-dir", config_dir + "/none"});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("--config-dir " + config_dir + "/none") != std::string::npos);
}

TEST_CASE("the platform check plans for a system of a --config-dir folder, and refuses one it lacks") {
  TempDir dir;
  write_own_system(dir);
  const ProcessResult plan =
      dgxhost({"--plugin", "platform-check", "--config-dir", dir.path().string(), "--set", "system=h100-ours"});
  CAPTURE(plan.err);
  CHECK(plan.out.find("h100-ours") != std::string::npos);
  const ProcessResult unknown = dgxhost({"--plugin", "platform-check", "--set", "system=h100-ours"});
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("unknown system 'h100-ours'") != std::string::npos);
}

TEST_CASE("a misspelt key in a user's system file is an error naming the file, the line and the key") {
  TempDir dir;
  (void)dir.write("systems/h100-typo.toml", "name = \"h100-typo\"\ninherits = \"h100-sxm\"\ndisplay = \"d\"\n"
                                            "source = \"s\"\n[gpu]\npower_cap = 600\n[network]\nnic_gbps = 25\n");
  const ProcessResult r = dgxhost(
      {"--plugin", "llama8b", "--mode", "project", "--config-dir", dir.path().string(), "--set", "system=h100-typo"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("h100-typo.toml:6:13: unknown key 'gpu.power_cap' (did you mean 'gpu.power_cap_w'?)") !=
        std::string::npos);
}
