// -o as users meet it: checked before the run (exit 2 in well under a second), written only to regular files,
// and a file that cannot be written is a failed run that stdout admits.
#include <doctest/doctest.h>

#include "dgx/json/json.hpp"
#include "dgxhost.hpp"
#include "temp_dir.hpp"

using namespace dgx;
using namespace dgx::testing;

TEST_CASE("-o into a missing folder fails in under a second with exit 2") {
  TempDir dir;
  // Before any work, which is what "under a second" stands for whatever the machine's load: the run asked for
  // would spin ten minutes per sample, and no plugin is loaded, no run folder made, no CPU second spent.
  const ProcessResult r =
      dgxhost({"--plugin", "spin", "--set", "spin.us=600000000", "-o", (dir.path() / "nodir" / "x.json").string()},
              {{"DGX_RUNS_DIR", (dir.path() / "runs").string()}});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("No such file or directory") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "runs"));
  CHECK(r.cpu_seconds < 1);
}

TEST_CASE("-o with an empty file name is refused like --output=, for a run and for compare") {
  TempDir dir;
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--plugin", "spin", "-o", ""},
                                               std::vector<std::string>{"--plugin", "spin", "--output", ""},
                                               std::vector<std::string>{"--plugin", "spin", "--output="}}) {
    const ProcessResult r = dgxhost(args, {{"DGX_RUNS_DIR", (dir.path() / "runs").string()}});
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK_FALSE(std::filesystem::exists(dir.path() / "runs"));  // refused before any work
  }
  CHECK(dgxhost({"--plugin", "spin", "-o", ""}).err.find("--output needs a file name (or - for stdout)") !=
        std::string::npos);
  const ProcessResult compare = dgxhost({"compare", "a.json", "b.json", "-o", ""});
  CHECK(compare.exit_code == 2);
  CHECK(compare.err.find("compare: --output needs a file name") != std::string::npos);
}

TEST_CASE("-o with an extension no reporter writes is a usage error, not a silent table") {
  TempDir dir;
  const ProcessResult r = dgxhost({"--plugin", "spin", "-o", (dir.path() / "r.pdf").string()});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("unknown extension '.pdf'") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "r.pdf"));
}

TEST_CASE("-o on a symlink or a device is refused and the link is left alone") {
  TempDir dir;
  const auto victim = dir.write("victim.json", "precious");
  std::filesystem::create_symlink(victim, dir.path() / "link.json");
  ProcessResult r = dgxhost({"--plugin", "spin", "-o", (dir.path() / "link.json").string()});
  CHECK(r.exit_code == 2);
  CHECK(std::filesystem::is_symlink(dir.path() / "link.json"));
  r = dgxhost({"--plugin", "spin", "-o", "/dev/null"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("character device") != std::string::npos);
}

TEST_CASE("-o - writes the results to stdout") {
  const ProcessResult r = dgxhost(
      std::vector<std::string>{"--plugin", "spin", "--set", "spin.us=10", "--format", "json", "-o", "-"} + kQuick);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(json::parse(r.out)["status"]["ok"].as_bool());
}

TEST_CASE("a results file that cannot be written fails the run, and the JSON on stdout says so") {
  TempDir dir;
  const auto target = dir.path() / "r.json";
  // The check before the run passes; then the target becomes a folder, which the writer must not replace. It does
  // once the run folder is announced (after the check), not after a delay a loaded machine may spend starting:
  // the run then spins for a second at least (runner.min_time is of busy-waited samples), long enough for the
  // folder to appear. (Signal 0 sends nothing: run_process_signalled only asks when.)
  TempDir runs;
  const ProcessResult r =
      run_process_signalled(DGX_TEST_DGXHOST,
                            {"--plugin", "spin", "--set", "spin.us=1000", "--set", "runner.min_time=1", "--set",
                             "runner.noise=0", "--format", "json", "-o", target.string()},
                            {{"DGX_RUNS_DIR", runs.path().string()}}, 0, [&](const std::string& err, double) {
                              if (err.find("run folder: ") == std::string::npos) {
                                return false;
                              }
                              std::filesystem::create_directory(target);
                              return true;
                            });
  CHECK(r.exit_code == 1);
  const json::Value doc = json::parse(r.out);
  CHECK(doc["status"]["exit_code"].as_int() == 1);
  CHECK_FALSE(doc["status"]["ok"].as_bool());
  CHECK(doc["status"]["error"].as_string().find("is a directory") != std::string::npos);
  CHECK(doc["results"].as_array().size() == 1);  // the measured case is still reported
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) {
    ++files;
  }
  CHECK(files == 1);  // the folder only: no stale temporary
}
