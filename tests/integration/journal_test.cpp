// Acceptance: a measured run keeps a journal of finished cases; kill -9 mid-sweep leaves every finished case on
// disk and --resume completes the run with the rows a full run gives.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "dgx/json/json.hpp"
#include "dgxhost.hpp"
#include "temp_dir.hpp"

using namespace dgx;
using namespace dgx::testing;

namespace {

std::vector<std::string> sweep_args() {
  return {"--plugin", "spin",
          "--set",    "spin.cases=6",
          "--set",    "spin.us=200",
          "--set",    "runner.min_time=0.5",
          "--set",    "runner.min_samples=5",
          "--set",    "runner.max_time=2"};
}

std::vector<std::string> lines_of(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  return lines;
}

// What makes a row the row of its case (timings differ from run to run).
std::vector<std::string> row_keys(const json::Value& doc) {
  std::vector<std::string> keys;
  for (const json::Value& row : doc["results"].as_array()) {
    std::string key = row["label"].as_string() + " " + json::write(row["config"], 0);
    for (const auto& [name, metric] : row["metrics"].as_object()) {
      key += " " + name;
    }
    keys.push_back(key);
  }
  return keys;
}

}  // namespace

TEST_CASE("kill -9 mid-sweep leaves every finished case in the journal, and --resume completes the run") {
  TempDir dir;
  const auto run = dir.path() / "run";
  // SIGKILL after about three of six cases.
  std::vector<std::string> killed{"-s", "KILL", "2.2", DGX_TEST_DGXHOST};
  const std::vector<std::string> sweep = sweep_args();
  killed.insert(killed.end(), sweep.begin(), sweep.end());
  killed.insert(killed.end(), {"--run-dir", run.string()});
  const ProcessResult k = run_process("/usr/bin/timeout", killed, {});
  CHECK(k.exit_code == 128 + 9);
  const auto journal = lines_of(run / "journal.jsonl");
  REQUIRE(journal.size() >= 2);  // the header and at least one case
  CHECK(journal.size() < 7);
  CHECK(json::parse(journal[0])["schema"].as_string() == "dgx.journal/1");
  for (std::size_t i = 1; i < journal.size(); ++i) {
    CHECK(json::parse(journal[i])["case"].as_int() == static_cast<std::int64_t>(i - 1));
  }
  const std::size_t finished = journal.size() - 1;

  const ProcessResult resumed = dgxhost({"--resume", run.string(), "--format", "json"});
  REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.err);
  CHECK(resumed.err.find("resuming the run in " + run.string()) != std::string::npos);
  CHECK(resumed.err.find("case " + std::to_string(finished) + "/6 done") == std::string::npos);  // not run again
  CHECK(resumed.err.find("case 6/6 done") != std::string::npos);
  CHECK(lines_of(run / "journal.jsonl").size() == 7);

  const ProcessResult full = dgxhost(sweep_args() + std::vector<std::string>{"--format", "json"});
  REQUIRE(full.exit_code == 0);
  CHECK(row_keys(json::parse(resumed.out)) == row_keys(json::parse(full.out)));
  std::ifstream results(run / "results.json");
  std::stringstream text;
  text << results.rdbuf();
  CHECK(json::parse(text.str())["results"].as_array().size() == 6);
  // One log across both processes: the killed run's lines (flushed per line) and then the resumed run's.
  const auto log = lines_of(run / "run.log");
  REQUIRE(log.size() >= 4);
  CHECK(log[0].rfind("# dgxhost run, command line [", 0) == 0);
  const auto resumed_header = std::find_if(
      log.begin(), log.end(), [](const std::string& l) { return l.rfind("# dgxhost resumed run", 0) == 0; });
  REQUIRE(resumed_header != log.end());
  // The killed run logged every case it journaled, except perhaps the last: a case's journal line is written
  // before its log line, and SIGKILL may fall between the two. It logged no case it did not journal.
  const auto killed_logged = [&](std::size_t c) {
    return std::find_if(log.begin(), resumed_header, [&](const std::string& l) {
             return l.find("case " + std::to_string(c) + "/6 done") != std::string::npos;
           }) != resumed_header;
  };
  for (std::size_t c = 1; c < finished; ++c) {
    CHECK_MESSAGE(killed_logged(c), "case ", c, " of the killed run is not in run.log");
  }
  for (std::size_t c = finished + 1; c <= 6; ++c) {
    CHECK_MESSAGE(!killed_logged(c), "case ", c, " was logged by the killed run but not journaled");
  }
  CHECK(log.back().find("case 6/6 done") != std::string::npos);
}

TEST_CASE("the run folder's run.log keeps every message, time-stamped, also under --quiet") {
  TempDir dir;
  const auto run = dir.path() / "run";
  const ProcessResult r =
      dgxhost({"--plugin", "spin", "--set", "spin.cases=2", "--set", "spin.us=100", "--set", "runner.min_time=0.02",
               "--set", "runner.min_samples=5", "--quiet", "--run-dir", run.string()});
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("case 2/2 done") == std::string::npos);  // --quiet: not on stderr
  const auto log = lines_of(run / "run.log");
  REQUIRE(log.size() >= 4);
  CHECK(log[0].find("\"--quiet\"") != std::string::npos);
  CHECK(log[1].find("Z dgxhost: run folder: " + run.string()) == 19);  // 2026-12-01T00:50:00Z dgxhost: ...
  CHECK(std::any_of(log.begin(), log.end(),
                    [](const std::string& l) { return l.find("case 2/2 done") != std::string::npos; }));
}

TEST_CASE("each finished case prints a progress line with an estimate when stderr is not a terminal") {
  TempDir dir;
  const ProcessResult r =
      dgxhost({"--plugin", "spin", "--set", "spin.cases=3", "--set", "spin.us=100", "--set", "runner.min_time=0.02",
               "--set", "runner.min_samples=5", "--run-dir", (dir.path() / "run").string()});
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("case 1/3 done (100 us); 1/3 finished, ") != std::string::npos);
  CHECK(r.err.find(" left\n") != std::string::npos);
  CHECK(r.err.find("case 3/3 done") != std::string::npos);
  // Without a run folder too (a batch job's stderr is all it has; dgxhost() runs with DGX_RUNS_DIR=off).
  const ProcessResult off = dgxhost({"--plugin", "spin", "--set", "spin.cases=2", "--set", "spin.us=100", "--set",
                                     "runner.min_time=0.02", "--set", "runner.min_samples=5"});
  REQUIRE(off.exit_code == 0);
  CHECK(off.err.find("run folder") == std::string::npos);
  CHECK(off.err.find("case 1/2 done (100 us); 1/2 finished, ") != std::string::npos);
  CHECK(off.err.find("case 2/2 done") != std::string::npos);
}

TEST_CASE("the default run folder is <DGX_RUNS_DIR>/<UTC time>-<plugin>-<workload>, off keeps none") {
  TempDir dir;
  const ProcessResult r = dgxhost(
      {"--plugin", "spin", "--set", "spin.us=100", "--set", "runner.min_time=0.02", "--set", "runner.min_samples=5"},
      {{"DGX_RUNS_DIR", dir.path().string()}});
  REQUIRE(r.exit_code == 0);
  std::vector<std::filesystem::path> runs;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    runs.push_back(e.path());
  }
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].filename().string().find("Z-spin-spin") == 15);  // 20261130T211500Z-spin-spin
  CHECK(std::filesystem::exists(runs[0] / "journal.jsonl"));
  CHECK(std::filesystem::exists(runs[0] / "results.json"));
}

TEST_CASE("--resume refuses a run that differs from the journal's, naming the difference") {
  TempDir dir;
  const auto run = dir.path() / "run";
  const std::vector<std::string> quick{
      "--plugin", "spin", "--set", "runner.min_time=0.02", "--set", "runner.min_samples=5"};
  REQUIRE(dgxhost(quick + std::vector<std::string>{"--set", "spin.us=100", "--run-dir", run.string()}).exit_code == 0);
  const ProcessResult r = dgxhost(quick + std::vector<std::string>{"--set", "spin.us=200", "--resume", run.string()});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("config key spin.us: the journal's is 100, this run's 200") != std::string::npos);
  const ProcessResult again =
      dgxhost(quick + std::vector<std::string>{"--set", "spin.us=100", "--run-dir", run.string()});
  CHECK(again.exit_code == 2);  // a run folder is never overwritten
  CHECK(again.err.find("--resume " + run.string()) != std::string::npos);
  const ProcessResult project = dgxhost(
      {"--plugin-dir", fixture_dir("good"), "--plugin", "cplain", "--mode", "project", "--resume", run.string()});
  CHECK(project.exit_code == 2);
  CHECK(project.err.find("only measured runs keep a journal") != std::string::npos);
}

TEST_CASE("a last journal line cut short by a crash is dropped when the run resumes") {
  TempDir dir;
  const auto run = dir.path() / "run";
  const std::vector<std::string> sweep{"--plugin", "spin",
                                       "--set",    "spin.cases=2",
                                       "--set",    "spin.us=100",
                                       "--set",    "runner.min_time=0.02",
                                       "--set",    "runner.min_samples=5"};
  REQUIRE(dgxhost(sweep + std::vector<std::string>{"--run-dir", run.string()}).exit_code == 0);
  auto lines = lines_of(run / "journal.jsonl");
  REQUIRE(lines.size() == 3);
  {
    std::ofstream out(run / "journal.jsonl", std::ios::trunc);
    out << lines[0] << "\n" << lines[1] << "\n" << lines[2].substr(0, lines[2].size() / 2);
  }
  const ProcessResult r = dgxhost(sweep + std::vector<std::string>{"--resume", run.string(), "--format", "json"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(json::parse(r.out)["results"].as_array().size() == 2);
  CHECK(r.err.find("case 2/2 done") != std::string::npos);
  CHECK(r.err.find("case 1/2 done") == std::string::npos);
  CHECK(lines_of(run / "journal.jsonl").size() == 3);
}
