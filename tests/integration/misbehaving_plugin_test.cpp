// Plugins that load cleanly and then misbehave (issue 22, tests/fixtures/plugins/misbehave.c): whatever a plugin
// does, dgxhost never exits 0 without its results, and every abnormal end names the plugin, the call and what
// happened, with the journal intact. The guards are docs/design-reliability.md's.
#include <doctest/doctest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "dgx/json/json.hpp"
#include "dgxhost.hpp"
#include "temp_dir.hpp"

using namespace dgx;
using namespace dgx::testing;

namespace {

std::string misbehaving(const char* folder) { return fixture_dir("misbehaving") + "/" + folder; }

std::vector<std::string> misbehave(const std::string& how) {
  return std::vector<std::string>{"--plugin-dir", misbehaving("run"), "--plugin", "misbehave",
                                  "--mode",       "measure",          "--set",    "misbehave.run=" + how} +
         kQuick;
}

std::string read(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every line of a journal is a JSON document, the first its header: nothing half-written.
void check_journal(const std::filesystem::path& dir) {
  std::istringstream lines(read(dir / "journal.jsonl"));
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    const json::Value entry = json::parse(line);
    if (n++ == 0) {
      CHECK(entry["schema"].as_string() == "dgx.journal/1");
    }
  }
  CHECK(n >= 1);
}

}  // namespace

TEST_CASE("exit(0), _exit(0) or quick_exit(0) inside run() ends with exit 6 naming the plugin, call and exit") {
  for (const char* how : {"exit", "_exit", "quick_exit"}) {
    TempDir dir;
    const auto run_dir = dir.path() / "run";
    const ProcessResult r = dgxhost(misbehave(how) + std::vector<std::string>{"--run-dir", run_dir.string()});
    CHECK_MESSAGE(r.exit_code == 6, how);
    CHECK_MESSAGE(r.err.find("dgxhost: error: misbehave:misbehave: run() of case 1/1: the plugin ended the process "
                             "with " +
                             std::string(how) + "(0); the run ends here (exit code 6); finished cases are in " +
                             run_dir.string() + "/journal.jsonl") != std::string::npos,
                  r.err);
    check_journal(run_dir);
  }
}

TEST_CASE("a crash in a plugin's shutdown() keeps the run's exit code and leaves --list working") {
  const std::string dir = misbehaving("shutdown");
  const std::string warning =
      "dgxhost: warning: crash-in-shutdown: shutdown(): the plugin crashed with SIGSEGV; ignored: the run had "
      "already ended, its exit code stays ";
  ProcessResult r = dgxhost({"--plugin-dir", dir, "--list"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("crash-in-shutdown 1.0.0") != std::string::npos);
  CHECK(r.err.find(warning + "0") != std::string::npos);
  r = dgxhost({"--plugin-dir", dir, "--plugin", "crash-in-shutdown", "--mode", "project", "--format", "json"});
  CHECK(r.exit_code == 0);
  CHECK(json::parse(r.out)["status"]["ok"].as_bool());
  r = dgxhost({"--plugin-dir", dir, "--plugin", "spin", "--set", "spin.us=-1"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(warning + "2") != std::string::npos);
}

TEST_CASE("a crash in a thread the plugin started, outside any call, ends with exit 6 naming the plugin's file") {
  // The thread crashes once the slow plugin's init() starts in the child that checks it: the host is then
  // waiting for that child, in none of its plugin calls.
  TempDir dir;
  const ProcessResult r = dgxhost({"--plugin-dir", misbehaving("thread"), "--list"},
                                  {{"DGX_TEST_CRASH_SIGNAL", (dir.path() / "now").string()}, {"DGX_CACHE_DIR", "off"}});
  CHECK(r.exit_code == 6);
  CHECK_MESSAGE(r.err.find("dgxhost: error: the plugin " + misbehaving("thread") +
                           "/libdgx-crash-in-thread.so crashed with SIGSEGV outside any call into it (in a thread it "
                           "started); the run ends here (exit code 6)") != std::string::npos,
                r.err);
}

TEST_CASE("a plugin that closes stdout gets it back: the output is whole and the plugin is named") {
  ProcessResult r = dgxhost({"--plugin-dir", misbehaving("init-closes-stdout"), "--list"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("init-closes-stdout 1.0.0") != std::string::npos);
  CHECK(r.err.find("libdgx-init-closes-stdout.so: init(): the plugin closed stdout (fd 1); dgxhost restored its "
                   "own") != std::string::npos);
  r = dgxhost(misbehave("close-stdout") + std::vector<std::string>{"--format", "json"});
  CHECK(r.exit_code == 0);
  CHECK(json::parse(r.out)["results"].as_array().size() == 1);
  CHECK(r.err.find("misbehave:misbehave: run() of case 1/1: the plugin closed stdout (fd 1)") != std::string::npos);
}

TEST_CASE("a failed write to stdout is an error and exit 1, not a silent exit 0") {
  const ProcessResult r = run_process("/bin/sh", {"-c", "exec \"$0\" --list > /dev/full", DGX_TEST_DGXHOST});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("dgxhost: error: cannot write to stdout: No space left on device") != std::string::npos);
}

TEST_CASE("a plugin that sets SIGINT and SIGTERM to SIG_IGN leaves Ctrl-C working: results and exit 130") {
  TempDir dir;
  const auto results = dir.path() / "r.json";
  // The plugin ignores both signals from its fourth sample on; once it has said so on stderr, Ctrl-C.
  const ProcessResult r = run_process_signalled(
      DGX_TEST_DGXHOST,
      misbehave("ignore-signals") + std::vector<std::string>{"--set", "runner.min_time=1000", "--set",
                                                             "runner.max_time=600", "--set",
                                                             "runner.max_samples=1000000000", "-o", results.string()},
      {{"DGX_RUNS_DIR", "off"}}, SIGINT, [](const std::string& err, double) {
        return err.find("set SIGTERM to SIG_IGN; dgxhost restored its own") != std::string::npos;
      });
  CHECK(r.exit_code == 130);
  CHECK(r.err.find("misbehave:misbehave: run() of case 1/1: the plugin set SIGINT to SIG_IGN, set SIGTERM to SIG_IGN; "
                   "dgxhost restored its own") != std::string::npos);
  const json::Value doc = json::parse(read(results));
  CHECK(doc["status"]["exit_code"].as_int() == 130);
  CHECK(doc["results"].as_array().size() == 1);
}

TEST_CASE("a plugin thread that keeps re-ignoring SIGINT and SIGTERM cannot make the host lose them: exit 130") {
  // From its fourth sample on the plugin runs a thread that sets both to SIG_IGN again and again; SIGTERM then
  // (what Slurm and Kubernetes send) or Ctrl-C must still stop the run with its results. timeout(1) passes the
  // signal on (--foreground: to dgxhost alone, once; without it the process group gets a second SIGINT, which ends
  // dgxhost at once), and ends a run that lost it after 60 s (exit 124).
  for (const int signal_number : {SIGTERM, SIGINT}) {
    CAPTURE(signal_number);
    TempDir dir;
    const auto results = dir.path() / "r.json";
    const ProcessResult r = run_process_signalled(
        "/usr/bin/timeout",
        std::vector<std::string>{"--foreground", "60", DGX_TEST_DGXHOST} + misbehave("ignore-signals-thread") +
            std::vector<std::string>{"--set", "runner.min_time=1000", "--set", "runner.max_time=600", "--set",
                                     "runner.max_samples=1000000000", "-o", results.string()},
        {{"DGX_RUNS_DIR", "off"}}, signal_number, [](const std::string& err, double) {
          return err.find("misbehaving now: ignore-signals-thread") != std::string::npos;
        });
    CHECK(r.exit_code == 130);
    const json::Value doc = json::parse(read(results));
    CHECK(doc["status"]["exit_code"].as_int() == 130);
  }
}

TEST_CASE("a run() that never returns is ended after runner.max_time and the grace period, named, exit 6") {
  const ProcessResult r = dgxhost(misbehave("busy") + std::vector<std::string>{"--set", "runner.max_time=0.1"},
                                  {{"DGX_INTERRUPT_GRACE_S", "1"}});
  CHECK(r.exit_code == 6);
  // A phase's first sample has ten times runner.max_time (a case needs one sample); the watchdog says so.
  CHECK_MESSAGE(r.err.find("dgxhost: error: misbehave:misbehave: run() of case 1/1: did not return within 1 s after "
                           "1.00 s (10 x runner.max_time, a phase's first sample) ran out: run() must return, or poll "
                           "cancel_requested, by then; the run ends here (exit code 6)") != std::string::npos,
                r.err);
}

namespace {

// A projection of misbehave.project=`how`, under timeout(1): a dgxhost that never ends it fails the test (exit 124,
// or 137 when it outlives SIGTERM too) instead of hanging it. --foreground passes a signal to dgxhost alone, once.
std::vector<std::string> project(const std::string& how) {
  return {"--foreground",
          "-k",
          "10",
          "60",
          DGX_TEST_DGXHOST,
          "--plugin-dir",
          misbehaving("run"),
          "--plugin",
          "misbehave",
          "--mode",
          "project",
          "--set",
          "misbehave.project=" + how};
}

}  // namespace

TEST_CASE("a project() that never returns is ended after DGX_PROJECT_TIMEOUT_S and the grace period, named, exit 6") {
  const ProcessResult r = run_process("/usr/bin/timeout", project("busy"),
                                      {{"DGX_PROJECT_TIMEOUT_S", "1"}, {"DGX_INTERRUPT_GRACE_S", "1"}});
  CHECK(r.exit_code == 6);
  CHECK_MESSAGE(r.err.find("dgxhost: error: misbehave:misbehave: project(): did not return within 1 s after "
                           "DGX_PROJECT_TIMEOUT_S (1 s) ran out: project() must return, or poll cancel_requested, by "
                           "then; the run ends here (exit code 6)") != std::string::npos,
                r.err);
}

TEST_CASE("a project() that polls cancel_requested stops at DGX_PROJECT_TIMEOUT_S: exit 1, the limit named") {
  const ProcessResult r = run_process("/usr/bin/timeout", project("poll"), {{"DGX_PROJECT_TIMEOUT_S", "1"}});
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(r.err.find("misbehave:misbehave: project() stopped at its time limit, DGX_PROJECT_TIMEOUT_S (1 s), "
                           "before it finished") != std::string::npos,
                r.err);
}

TEST_CASE("Ctrl-C or SIGTERM ends a project() that never returns: exit 130 after the grace period, the call named") {
  // The projection's own deadline is far away: only the signal ends it, also when the plugin ignores SIGALRM (the
  // grace period's alarm).
  for (const auto& c : {std::pair{"busy", SIGINT}, {"busy", SIGTERM}, {"busy-no-alarm", SIGINT}}) {
    const char* how = c.first;  // named copies: clang cannot capture structured bindings (CAPTURE is a lambda)
    const int signal_number = c.second;
    CAPTURE(how);
    CAPTURE(signal_number);
    const ProcessResult r = run_process_signalled(
        "/usr/bin/timeout", project(how), {{"DGX_INTERRUPT_GRACE_S", "1"}}, signal_number,
        [](const std::string& err, double) { return err.find("projecting now: busy") != std::string::npos; });
    CHECK(r.exit_code == 130);
    CHECK_MESSAGE(r.err.find("interrupted, and misbehave:misbehave: project() did not return within 1 s") !=
                      std::string::npos,
                  r.err);
  }
}

TEST_CASE("Ctrl-C stops a project() that polls cancel_requested: exit 130") {
  const ProcessResult r =
      run_process_signalled("/usr/bin/timeout", project("poll"), {}, SIGINT, [](const std::string& err, double) {
        return err.find("projecting now: poll") != std::string::npos;
      });
  CHECK(r.exit_code == 130);
}

TEST_CASE("a plugin whose init hangs costs the check's time limit once: the rejection is remembered") {
  TempDir cache;
  const std::map<std::string, std::string> env{{"DGX_CACHE_DIR", cache.path().string()}, {"DGX_PROBE_TIMEOUT_S", "1"}};
  const std::string file = misbehaving("init-hang") + "/libdgx-init-hang.so";
  ProcessResult r = dgxhost({"--plugin-dir", misbehaving("init-hang"), "--list"}, env);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find(file + ": did not finish loading and initialising within 1 s") != std::string::npos);
  r = dgxhost({"--plugin-dir", misbehaving("init-hang"), "--plugin", "spin", "--set", "spin.us=10"}, env);
  CHECK(r.exit_code == 0);  // no child this time: the remembered rejection
  r = dgxhost({"--plugin-dir", misbehaving("init-hang"), "--list"}, env);
  CHECK(r.out.find(file + ": did not finish loading and initialising within 1 s") != std::string::npos);
  CHECK(r.out.find("(remembered from an earlier check, " + cache.path().string()) != std::string::npos);
}

TEST_CASE("a plugin that passes the check in a child but crashes when dgxhost loads it is refused, the run goes on") {
  TempDir cache;
  const std::map<std::string, std::string> env{{"DGX_CACHE_DIR", cache.path().string()}};
  const std::string file = misbehaving("host-only") + "/libdgx-host-only-crash.so";
  ProcessResult r = dgxhost(std::vector<std::string>{"--plugin-dir", misbehaving("host-only"), "--plugin", "spin",
                                                     "--set", "spin.us=10", "--format", "json"} +
                                kQuick,
                            env);
  CHECK(r.exit_code == 0);
  CHECK(json::parse(r.out)["status"]["ok"].as_bool());
  CHECK_MESSAGE(r.err.find("dgxhost: warning: " + file +
                           ": init(): the plugin crashed with SIGSEGV in dgxhost, "
                           "although it passed the check in a child; it is refused from now on") != std::string::npos,
                r.err);
  CHECK(r.err.find("running the command again without it") != std::string::npos);
  r = dgxhost({"--plugin-dir", misbehaving("host-only"), "--list"}, env);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find(file + ": loaded cleanly in the child that checks new plugins, then failed when dgxhost itself "
                          "loaded it") != std::string::npos);
  // Without a cache to remember the refusal in, starting again would meet the same crash: exit 6, named.
  r = dgxhost({"--plugin-dir", misbehaving("host-only"), "--list"}, {{"DGX_CACHE_DIR", "off"}});
  CHECK(r.exit_code == 6);
  CHECK(r.err.find(file + ": init(): the plugin crashed with SIGSEGV") != std::string::npos);
}
