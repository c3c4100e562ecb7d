// Several ranks on this machine with mpirun: rank 0 reports for everyone, and a rank that fails or dies ends
// every rank with a non-zero exit and a message naming it — never a hang.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "dgx/json/json.hpp"
#include "dgxhost.hpp"
#include "platform_check_file.hpp"
#include "temp_dir.hpp"

using namespace dgx;
using namespace dgx::testing;

namespace {

// `timeout` bounds every run: a hang fails the test instead of stalling the suite.
ProcessResult mpirun(int ranks, const std::vector<std::string>& args, std::map<std::string, std::string> env = {}) {
  std::vector<std::string> all{
      "60", DGX_TEST_MPIEXEC, "-np", std::to_string(ranks), "--oversubscribe", DGX_TEST_DGXHOST};
  all.insert(all.end(), args.begin(), args.end());
  env.emplace("OMPI_ALLOW_RUN_AS_ROOT", "1");
  env.emplace("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
  env.emplace("DGX_RUNS_DIR", "off");
  return run_process("/usr/bin/timeout", all, env);
}

}  // namespace

TEST_CASE("mpirun -np 2 dgxhost --plugin all_reduce: one JSON document from rank 0, checked results") {
  const ProcessResult r = mpirun(2, {"--plugin", "all_reduce", "-e", "64K", "--format", "json"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const json::Value doc = json::parse(r.out);  // exactly one document: other ranks stay quiet
  CHECK(doc["context"]["ranks"]["world_size"].as_int() == 2);
  CHECK(doc["context"]["ranks"]["launcher"].as_string() == "openmpi");
  CHECK(doc["context"]["nodes"].as_array().size() == 2);
  const json::Array& rows = doc["results"].as_array();
  CHECK(rows.size() == 28);  // 14 sizes (8 B to 64 KiB) x 2 placements
  for (const json::Value& row : rows) {
    CHECK(row["config"]["transport"].as_string() == "mpi");
    CHECK(row["config"]["world_size"].as_int() == 2);
    CHECK(row["info"]["check"].as_string() == "ok");
    const double algbw = row["metrics"]["algbw"]["value"].as_number();
    CHECK(row["metrics"]["busbw"]["value"].as_number() == doctest::Approx(algbw));  // 2(n-1)/n = 1 for n = 2
    CHECK(row["metrics"]["size"]["value"].as_number() / row["metrics"]["time"]["value"].as_number() / 1e9 ==
          doctest::Approx(algbw));
  }
}

TEST_CASE("every collective runs and checks over two ranks") {
  const ProcessResult r = mpirun(2, {"--plugin", "comm", "-e", "4K", "-d", "bf16", "--format", "json"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const json::Value doc = json::parse(r.out);
  for (const json::Value& row : doc["results"].as_array()) {
    CHECK(row["info"]["check"].as_string() == "ok");
  }
}

TEST_CASE("a configuration that one rank rejects ends every rank with the config-error code, naming the rank") {
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult r = mpirun(2, {"--plugin", "spin", "--set", "spin.fail_rank=1"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("rank 1: spin:spin: invalid configuration") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
}

TEST_CASE("a rank that dies mid-run ends the others within a bounded time") {
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult r = mpirun(2, {"--plugin", "spin", "--set", "spin.crash_rank=1", "--set", "spin.us=100000",
                                     "--set", "runner.min_samples=100"});
  CHECK(r.exit_code != 0);
  CHECK(r.exit_code != 124);  // not killed by the timeout: MPI ended the job
  CHECK(r.err.find("rank 1") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
}

TEST_CASE("a failure inside the run on one rank aborts all ranks with its code") {
  const ProcessResult r =
      mpirun(2, {"--plugin-dir", fixture_dir("good"), "--plugin", "throw", "--set", "thrower.where=check", "--set",
                 "runner.min_time=0", "--set", "runner.max_time=1"});
  CHECK(r.exit_code == 5);
  CHECK(r.err.find("result mismatch") != std::string::npos);
}

TEST_CASE("ranks started with different configurations fail naming the difference instead of hanging") {
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult r =
      run_process("/usr/bin/timeout",
                  {"60", DGX_TEST_MPIEXEC, "--oversubscribe", "-np", "1", DGX_TEST_DGXHOST, "--plugin", "all_reduce",
                   "-e", "1K", ":", "-np", "1", DGX_TEST_DGXHOST, "--plugin", "all_reduce", "-e", "64K"},
                  {{"OMPI_ALLOW_RUN_AS_ROOT", "1"}, {"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"}, {"DGX_RUNS_DIR", "off"}});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("rank 1: this rank was started with a different run than rank 0: config key comm.max_bytes: "
                   "rank 0's is 1024, this rank's 65536") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
}

TEST_CASE("Ctrl-C on a 2-rank mpirun: every rank stops at the same sample, r.json is valid with exit code 130") {
  TempDir dir;
  const auto results = dir.path() / "r.json";
  // Ctrl-C once the journal holds a finished case (not after a fixed delay: a loaded machine may still be
  // starting the ranks), with mpirun's default odls_base_sigkill_timeout of 1 s between its SIGTERM to the ranks
  // and SIGKILL: rank 0 writes r.json before stdout, so the file is complete even when mpirun cuts stdout.
  const std::string script =
      std::string("runs=\"$1/runs\"; DGX_RUNS_DIR=\"$runs\" \"$2\" --oversubscribe -np 2 \"$3\" ") +
      "--plugin all_reduce --format json -o \"$1/r.json\" --set runner.min_time=0.3 "
      ">/dev/null 2>\"$1/err\" & pid=$!\n"
      "for i in $(seq 600); do\n"
      "  n=$(cat \"$runs\"/*/journal.jsonl 2>/dev/null | wc -l); [ \"$n\" -ge 3 ] && break; sleep 0.1\n"
      "done\n"
      "kill -INT $pid; wait $pid; echo \"mpirun exit $?\"; cat \"$runs\"/*/journal.jsonl | wc -l\n";
  const ProcessResult r =
      run_process("/usr/bin/timeout",
                  {"120", "/bin/bash", "-c", script, "bash", dir.path().string(), DGX_TEST_MPIEXEC, DGX_TEST_DGXHOST},
                  {{"OMPI_ALLOW_RUN_AS_ROOT", "1"}, {"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"}});
  REQUIRE(r.exit_code == 0);
  INFO(r.out);
  CHECK(r.out.find("mpirun exit 0\n") == std::string::npos);
  std::ifstream in(results);
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  const json::Value doc = json::parse(text.str());
  CHECK(doc["status"]["exit_code"].as_int() == 130);
  const int journal_lines = std::stoi(r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1));
  CHECK(doc["results"].as_array().size() >= static_cast<std::size_t>(journal_lines - 1));  // header + cases
  CHECK(doc["results"].as_array().size() >= 2);
}

TEST_CASE("a platform check over two ranks: every step on every rank, one merged report from rank 0") {
  TempDir dir;
  write_platform_check(dir, {{.name = "spin", .workload = "spin", .set = "spin.us=200"},
                             {.name = "all_reduce", .workload = "all_reduce", .set = "comm.max_bytes=1024"}});
  const ProcessResult r = mpirun(2, {"--config-dir", dir.path().string(), "--plugin", "platform-check", "--set",
                                     "runner.min_time=0.02", "--format", "json"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const json::Value doc = json::parse(r.out);  // one document: the other rank stays quiet
  CHECK(doc["context"]["workload"].as_string() == "platform-check");
  CHECK(doc["context"]["ranks"]["world_size"].as_int() == 2);
  const json::Array& rows = doc["results"].as_array();
  REQUIRE(rows.size() == 1 + 8 * 2);  // spin, and 8 sizes (8 B to 1 KiB) x 2 placements
  CHECK(rows[1]["config"]["world_size"].as_int() == 2);
  for (const json::Value& row : rows) {
    CHECK(row["info"]["verdict"].as_string() == "no reference");
  }
}

TEST_CASE("SIGTERM or SIGINT to rank 0 of a 2-rank mpirun writes the -o file and results.json, exit code 130") {
  // SIGTERM is what Slurm and Kubernetes send before they kill a job. Each rank records its pid, rank 0 gets the
  // signal once the journal holds a finished case, and both files must say 130 with the finished cases.
  for (const char* signal : {"TERM", "INT"}) {
    TempDir dir;
    const std::string script =
        std::string("d=\"$1\"; DGX_RUNS_DIR=\"$d/runs\" \"$2\" --oversubscribe -np 2 /bin/sh -c ") +
        "'echo $$ > \"$0/pid.$OMPI_COMM_WORLD_RANK\"; exe=\"$1\"; shift; exec \"$exe\" \"$@\"' \"$d\" \"$3\" " +
        "--plugin all_reduce --format json -o \"$d/r.json\" --set runner.min_time=0.3 >/dev/null 2>\"$d/err\" & "
        "pid=$!\n"
        // Waits for the state, not for a time: however loaded the machine, the signal comes after two finished cases
        // and while the job runs (26 cases of 0.3 s or more remain); the deadline only bounds a broken run.
        "until [ -s \"$d/pid.0\" ] && [ \"$(cat \"$d\"/runs/*/journal.jsonl 2>/dev/null | wc -l)\" -ge 3 ]; do\n"
        "  kill -0 $pid 2>/dev/null || { echo 'mpirun ended before two cases were in the journal'; exit 0; }\n"
        "  [ $SECONDS -lt 400 ] || { echo 'no two cases in the journal within 400 s'; kill $pid; exit 0; }\n"
        "  sleep 0.05\n"
        "done\n"
        "kill -" +
        signal + " $(cat \"$d/pid.0\"); wait $pid; echo \"mpirun exit $?\"\n";
    const ProcessResult r =
        run_process("/usr/bin/timeout",
                    {"600", "/bin/bash", "-c", script, "bash", dir.path().string(), DGX_TEST_MPIEXEC, DGX_TEST_DGXHOST},
                    {{"OMPI_ALLOW_RUN_AS_ROOT", "1"}, {"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"}});
    REQUIRE(r.exit_code == 0);
    const std::string context = std::string(signal) + ": " + r.out;
    INFO(context);
    REQUIRE(r.out.find("mpirun exit ") != std::string::npos);  // the signal was sent while the job ran
    CHECK(r.out.find("mpirun exit 0\n") == std::string::npos);
    const auto read = [](const std::filesystem::path& file) {
      std::ifstream in(file);
      REQUIRE_MESSAGE(in, file.string());
      std::stringstream text;
      text << in.rdbuf();
      return json::parse(text.str());
    };
    std::filesystem::path folder;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path() / "runs")) {
      folder = entry.path();
    }
    for (const auto& file : {dir.path() / "r.json", folder / "results.json"}) {
      const json::Value doc = read(file);
      CHECK(doc["status"]["exit_code"].as_int() == 130);
      CHECK(doc["results"].as_array().size() >= 2);
    }
  }
}

TEST_CASE("a 2-rank run's journal resumed without mpirun is refused naming the ranks, with mpirun it completes") {
  TempDir dir;
  const auto run = dir.path() / "run";
  REQUIRE(mpirun(2, {"--plugin", "spin", "--set", "spin.us=500", "--set", "spin.cases=3", "--set",
                     "runner.min_time=0.02", "--run-dir", run.string()})
              .exit_code == 0);
  const auto journal = run / "journal.jsonl";
  std::string text = [&] {
    std::ifstream in(journal);
    std::stringstream all;
    all << in.rdbuf();
    return all.str();
  }();
  text.erase(text.rfind('\n', text.size() - 2) + 1);  // the last case, as if the job had been killed in it
  std::ofstream(journal, std::ios::trunc) << text;
  const ProcessResult alone = dgxhost({"--resume", run.string()});
  CHECK(alone.exit_code == 2);
  CHECK(alone.err.find("this run differs from the journal's: ranks: the journal's run had 2 ranks (mpi), this run "
                       "has 1 rank (local)") != std::string::npos);
  const ProcessResult resumed = mpirun(2, {"--resume", run.string(), "--format", "json"});
  REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.err);
  const json::Value doc = json::parse(resumed.out);
  CHECK(doc["results"].as_array().size() == 3);
  CHECK(doc["context"]["ranks"]["world_size"].as_int() == 2);
}
