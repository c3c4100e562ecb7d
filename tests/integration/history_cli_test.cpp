// The results store and dgxhost history as users run them (issue 26): nightly results files recorded with
// `dgxhost store add`, a run recorded with --store and DGX_STORE, the history in every format, --detect as a
// nightly gate (exit 5), and each kind of bad input as exit 2 that loses no result.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "dgx/json/json.hpp"
#include "dgxhost.hpp"
#include "postgres_server.hpp"
#include "temp_dir.hpp"

using namespace dgx;
using namespace dgx::testing;

namespace {

// A results file as a nightly all_reduce check writes it (the fields the store reads; dgx.results/1).
std::string nightly_json(int night, double busbw, const std::string& nccl) {
  const std::string day = std::string(night < 10 ? "0" : "") + std::to_string(night);
  return R"({"schema": "dgx.results/1", "status": {"exit_code": 0, "ok": true},
  "context": {"time": "2026-11-)" +
         day + R"(T02:00:00Z", "host": {"hostname": "gpu-node-17"},
    "software": {"cuda_driver": "560.35", "nccl": ")" +
         nccl + R"("}, "plugin": {"name": "comm", "version": "1.0.0"}, "workload": "all_reduce", "mode": "measure",
    "config": {"comm.collective": "all_reduce"}},
  "results": [{"workload": "all_reduce", "plugin": "comm", "mode": "measured", "label": "1 GiB",
    "config": {"comm.bytes": 1073741824},
    "metrics": {"busbw": {"value": )" +
         std::to_string(busbw) + R"(, "unit": "GB/s"}, "time.median": {"value": 0.0125, "unit": "s"}},
    "info": {"timing": "device events"}}]})";
}

// Fourteen nights; NCCL changed on night 11 and the bandwidth fell 10% with it.
std::vector<std::string> write_nights(const TempDir& dir, int nights = 14, int fall_from = 11) {
  std::vector<std::string> files;
  const double noise[] = {0.4, -0.8, 0.2, 1.1, -0.3, 0.7, -1.0, 0.1, 0.6, -0.5, 0.3, -0.2, 0.9, -0.6};
  for (int n = 1; n <= nights; ++n) {
    const bool fell = n >= fall_from;
    const double busbw = (fell ? 432.0 : 480.0) + noise[(n - 1) % 14];
    files.push_back(
        dir.write("night-" + std::to_string(n) + ".json", nightly_json(n, busbw, fell ? "2.23.4" : "2.21.5")).string());
  }
  return files;
}

// A nightly nccl-tests log (its one largest row) whose file is dated 2026-11-NN 02:00 UTC, as a cron job leaves it:
// the log prints no date, so import dates it by the file's modification time.
std::string write_nccl_night(const TempDir& dir, int night, double algbw) {
  std::string path = (dir.path() / ("all_reduce-" + std::to_string(night) + ".log")).string();
  std::ofstream out(path);
  const double size = 134217728;
  char row[256];
  std::snprintf(
      row, sizeof row,
      "   %.0f      33554432     float     sum      -1  %7.1f  %6.2f  %6.2f      0  %7.1f  %6.2f  %6.2f      0\n", size,
      size / algbw * 1e-3, algbw, algbw * 1.75, size / algbw * 1e-3, algbw, algbw * 1.75);
  out << "# nccl-tests version 2.13.11 nccl-headers=22105 nccl-library=22105\n"
         "# Collective test starting: all_reduce_perf\n"
         "# Using devices\n";
  for (int rank = 0; rank < 8; ++rank) {
    out << "#  Rank  " << rank << " Group  0 Pid  4123" << rank << " on  dgx-h100-01 device  " << rank
        << " [0x1b] NVIDIA H100 80GB HBM3\n";
  }
  out << "#\n"
         "#                                                              out-of-place                       in-place\n"
         "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   "
         "busbw #wrong\n"
         "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  "
         "(GB/s)\n"
      << row
      << "# Out of bounds values : 0 OK\n"
         "# Avg bus bandwidth    : 373.6\n"
         "#\n"
         "# Collective test concluded: all_reduce_perf\n";
  out.close();
  const std::string day = std::string(night < 10 ? "0" : "") + std::to_string(night);
  std::tm tm{};
  strptime(("2026-11-" + day + " 02:00:00").c_str(), "%Y-%m-%d %H:%M:%S", &tm);
  const auto when = std::chrono::system_clock::from_time_t(timegm(&tm));
  std::filesystem::last_write_time(path, std::chrono::file_clock::from_sys(when));
  return path;
}

ProcessResult history(const std::string& store, const std::vector<std::string>& args) {
  return dgxhost(std::vector<std::string>{"history", "--store", store} + args);
}

}  // namespace

TEST_CASE("store add records nightly results once, history lists the series and --detect gates on the regression") {
  const TempDir dir;
  const std::string store = (dir.path() / "nightly.sqlite").string();
  const std::vector<std::string> nights = write_nights(dir);
  const ProcessResult added = dgxhost(std::vector<std::string>{"store", "add", "--store", store} + nights);
  REQUIRE_MESSAGE(added.exit_code == 0, added.err);
  CHECK(added.out.find("night-1.json: recorded as run 1 (1 rows, 2 points)") != std::string::npos);
  const ProcessResult again = dgxhost({"store", "add", "--store", store, nights.front()});
  CHECK(again.exit_code == 0);
  CHECK(again.out.find("already recorded as run 1") != std::string::npos);
  const ProcessResult info = dgxhost({"store", "info", "--store", store});
  CHECK(info.out.find("14 runs, 2 series, 28 points, from 2026-11-01T02:00:00Z to 2026-11-14T02:00:00Z") !=
        std::string::npos);

  const ProcessResult listed = history(store, {"--metric", "busbw"});
  REQUIRE_MESSAGE(listed.exit_code == 0, listed.err);
  CHECK(listed.out.find("history busbw") != std::string::npos);
  CHECK(listed.out.find("gpu-node-17") != std::string::npos);

  const ProcessResult gate = history(store, {"--metric", "busbw", "--detect"});
  CHECK(gate.exit_code == 5);
  CHECK(gate.out.find("regression") != std::string::npos);
  CHECK(gate.out.find("2026-11-11T02:00:00Z") != std::string::npos);
  CHECK(gate.out.find("nccl 2.21.5 -> 2.23.4") != std::string::npos);
  const ProcessResult window = history(store, {"--metric", "busbw", "--detect", "window", "--format", "json"});
  CHECK(window.exit_code == 5);
  const json::Value doc = json::parse(window.out);
  CHECK(doc["status"]["exit_code"].as_int() == 5);
  const json::Array& rows = doc["results"].as_array();
  REQUIRE(rows.size() == 15);  // the series, then its 14 points (JSON has them all)
  CHECK(rows[0]["info"]["verdict"].as_string() == "regression");
  CHECK(rows[14]["config"]["time"].as_string() == "2026-11-14T02:00:00Z");
  CHECK(rows[14]["info"]["nccl"].as_string() == "2.23.4");

  // Before the fall there is nothing to report: the same gate passes on the first ten nights.
  const ProcessResult before = history(store, {"--metric", "busbw", "--detect", "--until", "2026-11-10T23:00:00Z"});
  CHECK_MESSAGE(before.exit_code == 0, before.out);
  CHECK(before.out.find("no change") != std::string::npos);
  // The time metric did not change: no regression, but a listed series.
  const ProcessResult time = history(store, {"--metric", "time.median", "--detect"});
  CHECK(time.exit_code == 0);

  const std::string csv = (dir.path() / "history.csv").string();
  const std::string html = (dir.path() / "history.html").string();
  CHECK(history(store, {"--metric", "busbw", "-o", csv}).exit_code == 0);
  CHECK(history(store, {"--metric", "busbw", "--detect", "-o", html}).exit_code == 5);
  std::ifstream csv_in(csv);
  const std::string csv_text((std::istreambuf_iterator<char>(csv_in)), std::istreambuf_iterator<char>());
  CHECK(csv_text.find("2026-11-07T02:00:00Z") != std::string::npos);
  CHECK(std::filesystem::file_size(html) > 10000);
}

TEST_CASE("a run records itself with --store or DGX_STORE, and not with --store=off") {
  const TempDir dir;
  const std::string store = (dir.path() / "runs.sqlite").string();
  const std::vector<std::string> spin = {"--plugin-dir", DGX_TEST_PLUGIN_DIR, "--plugin", "spin",
                                         "--set",        "spin.us=200"};
  const ProcessResult r = dgxhost(spin + kQuick + std::vector<std::string>{"--store", store});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(dgxhost({"store", "info", "--store", store}).out.find("1 runs") != std::string::npos);
  CHECK(dgxhost(spin + kQuick, {{"DGX_STORE", store}}).exit_code == 0);
  CHECK(dgxhost(spin + kQuick + std::vector<std::string>{"--store=off"}, {{"DGX_STORE", store}}).exit_code == 0);
  CHECK(dgxhost({"store", "info", "--store", store}).out.find("2 runs") != std::string::npos);
  const ProcessResult listed = history(store, {"--plugin", "spin", "--metric", "time.median", "--format", "json"});
  REQUIRE(listed.exit_code == 0);
  const json::Value doc = json::parse(listed.out);
  CHECK(doc["results"][0]["metrics"]["points"]["value"].as_number() == 2);
}

TEST_CASE("bad stores and bad queries: exit 2 with a message naming them, and the run's results still written") {
  const TempDir dir;
  const std::vector<std::string> spin = {"--plugin-dir", DGX_TEST_PLUGIN_DIR, "--plugin", "spin",
                                         "--set",        "spin.us=200"};
  const ProcessResult is_dir = dgxhost(spin + kQuick + std::vector<std::string>{"--store", dir.path().string()});
  CHECK(is_dir.exit_code == 2);
  CHECK(is_dir.err.find(dir.path().string() + ": is a directory") != std::string::npos);
  CHECK(is_dir.err.find("nothing was run") != std::string::npos);

  const std::string unreachable = "postgresql://dgx@127.0.0.1:1/dgx";
  const std::string results = (dir.path() / "r.json").string();
  const ProcessResult no_server =
      dgxhost(spin + kQuick + std::vector<std::string>{"--store", unreachable, "-o", results});
  CHECK(no_server.exit_code == 2);
  CHECK(no_server.err.find("PostgreSQL store 127.0.0.1:1/dgx: cannot connect") != std::string::npos);
  CHECK(no_server.err.find("refused") != std::string::npos);
  CHECK(dgxhost({"history", "--store", unreachable}).exit_code == 2);

  const TempDir nights_dir;
  const std::string store = (dir.path() / "s.sqlite").string();
  REQUIRE(dgxhost(std::vector<std::string>{"store", "add", "--store", store} + write_nights(nights_dir, 1)).exit_code ==
          0);
  const ProcessResult unknown = history(store, {"--where", "rack=7"});
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("no field 'rack'") != std::string::npos);
  const ProcessResult one_point = history(store, {"--metric", "busbw", "--detect"});
  CHECK(one_point.exit_code == 2);
  CHECK(one_point.out.find("not enough history") != std::string::npos);
  CHECK(one_point.out.find("the longest has 1 point(s)") != std::string::npos);
  CHECK(history((dir.path() / "none.sqlite").string(), {}).err.find("does not exist") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "none.sqlite"));  // reading never creates a store
  const ProcessResult since = history(store, {"--since", "last tuesday"});
  CHECK(since.exit_code == 2);
  CHECK(since.err.find("--since last tuesday") != std::string::npos);
  const auto not_a_store = dir.write("notes.txt", "these are not the droids\n");
  const ProcessResult foreign = history(not_a_store.string(), {});
  CHECK(foreign.exit_code == 2);
  CHECK(foreign.err.find("not a SQLite database") != std::string::npos);
  const ProcessResult bad_file = dgxhost({"store", "add", "--store", store, not_a_store.string()});
  CHECK(bad_file.exit_code == 2);
  CHECK(bad_file.err.find("notes.txt") != std::string::npos);
}

TEST_CASE("a FIFO, a device or a damaged database as the store, or a FIFO to record, is refused at once naming it") {
  const TempDir dir;
  const std::string fifo = (dir.path() / "store.fifo").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  for (const std::vector<std::string>& args : {std::vector<std::string>{"store", "info", "--store", fifo},
                                               std::vector<std::string>{"history", "--store", fifo}}) {
    const ProcessResult r = dgxhost(args);  // returns: a FIFO is refused, never opened and waited on
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(fifo + ": is a FIFO, not a database file") != std::string::npos);
  }
  const TempDir nights_dir;
  const std::string store = (dir.path() / "s.sqlite").string();
  const ProcessResult results_fifo = dgxhost({"store", "add", "--store", store, fifo});
  CHECK(results_fifo.exit_code == 2);
  CHECK(results_fifo.err.find(fifo + ": is a FIFO, not a regular file") != std::string::npos);

  // /dev/null is a device: refused, and SQLite never gets to make its journal beside it.
  const ProcessResult null_store = dgxhost({"store", "add", "--store", "/dev/null", write_nights(nights_dir, 1)[0]});
  CHECK(null_store.exit_code == 2);
  CHECK(null_store.err.find("/dev/null: is a character device, not a database file") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists("/dev/null-journal"));

  // A damaged database: a good store whose pages were overwritten is refused before anything is written into it.
  REQUIRE(dgxhost(std::vector<std::string>{"store", "add", "--store", store} + write_nights(nights_dir, 3)).exit_code ==
          0);
  REQUIRE(dgxhost({"store", "info", "--store", store}).exit_code == 0);  // checkpointed: the pages are in the file
  {
    std::fstream file(store, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(std::streamoff{2} * 4096);  // page 3 whole: its b-tree header too
    const std::string garbage(4096, '\x5a');
    file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  std::filesystem::remove(store + "-wal");
  std::filesystem::remove(store + "-shm");
  const auto before = std::filesystem::file_size(store);
  const ProcessResult damaged = dgxhost({"store", "add", "--store", store, write_nights(nights_dir, 5)[4]});
  CHECK(damaged.exit_code == 2);
  CHECK(damaged.err.find(store + ": is damaged") != std::string::npos);
  CHECK(std::filesystem::file_size(store) == before);
}

TEST_CASE("--store alone records into the default store of the run-folder root, made on the first run") {
  const TempDir dir;
  const std::string root = (dir.path() / "runs").string();  // does not exist yet
  const ProcessResult r = dgxhost(std::vector<std::string>{"--plugin-dir", DGX_TEST_PLUGIN_DIR, "--plugin", "spin",
                                                           "--set", "spin.us=200", "--store"} +
                                      kQuick,
                                  {{"DGX_RUNS_DIR", root}});
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  CHECK(std::filesystem::exists(root + "/dgx-store.sqlite"));
}

TEST_CASE("a read-only store: recording into it is refused, naming it, and reading it works") {
  // File modes do not bind root: as root (CI) the commands run as the unprivileged user nobody.
  const bool root = geteuid() == 0;
  if (root &&
      run_process("/usr/sbin/runuser", {"-u", "nobody", "--", "/usr/bin/test", "-x", DGX_TEST_DGXHOST}).exit_code !=
          0) {
    MESSAGE("SKIPPED: cannot run as an unprivileged user (nobody cannot run " DGX_TEST_DGXHOST ")");
    return;
  }
  const TempDir dir;
  std::filesystem::permissions(dir.path(), std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                                               std::filesystem::perms::group_exec |
                                               std::filesystem::perms::others_read |
                                               std::filesystem::perms::others_exec);
  const std::string store = (dir.path() / "ro.sqlite").string();
  const std::vector<std::string> nights = write_nights(dir);
  REQUIRE(dgxhost(std::vector<std::string>{"store", "add", "--store", store} + nights).exit_code == 0);
  std::filesystem::permissions(store, std::filesystem::perms::owner_read | std::filesystem::perms::group_read |
                                          std::filesystem::perms::others_read);
  auto as_user = [&](const std::vector<std::string>& args) {
    if (!root) {
      return dgxhost(args);
    }
    return run_process("/usr/sbin/runuser", std::vector<std::string>{"-u", "nobody", "--", DGX_TEST_DGXHOST} + args,
                       {{"DGX_RUNS_DIR", "off"}});
  };
  const ProcessResult add = as_user({"store", "add", "--store", store, nights.front()});
  CHECK(add.exit_code == 2);
  CHECK(add.err.find("SQLite store " + store + ": is read-only") != std::string::npos);
  const ProcessResult read = as_user({"history", "--store", store, "--metric", "busbw", "--format", "json"});
  REQUIRE_MESSAGE(read.exit_code == 0, read.err);
  CHECK(json::parse(read.out)["results"][0]["metrics"]["points"]["value"].as_number() == 14);
}

TEST_CASE("a store on a PostgreSQL server: runs recorded by dgxhost, history read back, the server gone mid-way") {
  if (!PostgresServer::binaries()) {
    MESSAGE(kNoPostgres);
    return;
  }
  PostgresServer server;
  REQUIRE_MESSAGE(server.running(), server.error());
  REQUIRE(server.create_database("nightly"));
  const std::string store = server.url("nightly");
  const TempDir dir;
  const ProcessResult added = dgxhost(std::vector<std::string>{"store", "add", "--store", store} + write_nights(dir));
  REQUIRE_MESSAGE(added.exit_code == 0, added.err);
  const ProcessResult gate = history(store, {"--metric", "busbw", "--detect"});
  CHECK(gate.exit_code == 5);
  CHECK(gate.out.find("nccl 2.21.5 -> 2.23.4") != std::string::npos);

  // The server goes away while a run is under way (it was there when the run checked it): the run ends with exit
  // 2 naming the store and where its results are, and they are there.
  const TempDir runs;
  const ProcessResult cut = run_process_signalled(
      DGX_TEST_DGXHOST,
      std::vector<std::string>{"--plugin-dir", DGX_TEST_PLUGIN_DIR, "--plugin", "spin", "--set", "spin.us=200", "--set",
                               "spin.cases=3", "--set", "runner.min_time=0.5", "--store", store},
      {{"DGX_RUNS_DIR", runs.path().string()}}, SIGUSR1, [&](const std::string& err, double) {
        if (server.running() && err.find("run folder:") != std::string::npos) {
          server.stop();
        }
        return false;  // no signal: the server's end is the event
      });
  CHECK(cut.exit_code == 2);
  CHECK(cut.err.find("the run was not recorded: PostgreSQL store") != std::string::npos);
  const auto results = cut.err.find("its results are in ");
  REQUIRE(results != std::string::npos);
  const std::string path = cut.err.substr(results + 19, cut.err.find(" (dgxhost store add", results) - results - 19);
  CHECK(std::filesystem::exists(path));
  CHECK(cut.out.find("600 us") != std::string::npos);  // every case was measured and shown
  const ProcessResult gone = history(store, {"--metric", "busbw"});
  CHECK(gone.exit_code == 2);
  CHECK(gone.err.find("cannot connect") != std::string::npos);
}

TEST_CASE("ten nightly nccl-tests logs recorded with store add are one series, dated by their files, and --detect "
          "flags a 15% drop") {
  const TempDir dir;
  const std::string store = (dir.path() / "logs.sqlite").string();
  std::vector<std::string> args = {"store", "add", "--store", store};
  for (int night = 1; night <= 10; ++night) {
    // Nightly noise of a few tenths of a percent, then 15% less from night 8 on.
    const double jitter = 1 + 0.003 * ((night * 7) % 5 - 2);
    args.push_back(write_nccl_night(dir, night, 213.5 * jitter * (night >= 8 ? 0.85 : 1.0)));
  }
  const ProcessResult added = dgxhost(args);
  REQUIRE_MESSAGE(added.exit_code == 0, added.err);
  const ProcessResult info = dgxhost({"store", "info", "--store", store});
  CHECK_MESSAGE(info.out.find("10 runs, ") != std::string::npos, info.out);
  CHECK(info.out.find("from 2026-11-01T02:00:00Z to 2026-11-10T02:00:00Z") != std::string::npos);

  const ProcessResult series = history(store, {"--metric", "busbw", "--format", "json"});
  REQUIRE_MESSAGE(series.exit_code == 0, series.err);
  const json::Value doc = json::parse(series.out);
  const json::Array& rows = doc["results"].as_array();
  REQUIRE(!rows.empty());
  CHECK(rows[0]["metrics"]["points"]["value"].as_number() == 10);  // one series of ten nights, not ten of one

  const ProcessResult gate = history(store, {"--metric", "busbw", "--detect"});
  CHECK_MESSAGE(gate.exit_code == 5, gate.out);
  CHECK(gate.out.find("regression") != std::string::npos);
  CHECK(gate.out.find("2026-11-08T02:00:00Z") != std::string::npos);
}
