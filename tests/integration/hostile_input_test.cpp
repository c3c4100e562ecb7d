// Inputs a careless or hostile user gives: configs that nest without end, files that are not files, numbers out
// of range, folders that do not exist. dgxhost answers each with a usage error (exit 2) that says why, promptly,
// and with --format json still puts one JSON document on stdout.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <csignal>

#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "dgx/json/json.hpp"
#include "dgxhost.hpp"
#include "temp_dir.hpp"

using namespace dgx;
using namespace dgx::testing;

namespace {

std::string deep_key(int depth) {
  std::string key = "a";
  for (int i = 0; i < depth; ++i) {
    key += ".a";
  }
  return key + " = 1\n";
}

/// dgxhost `args` with one SIGINT, as Ctrl-C gives it, once `when` says the run is where the test wants it (a line
/// on stderr, the CPU time it has spent): not after a delay, which a loaded machine may spend still starting.
ProcessResult interrupted_when(const SignalWhen& when, const std::vector<std::string>& args,
                               const std::map<std::string, std::string>& env) {
  return run_process_signalled(DGX_TEST_DGXHOST, args, env, SIGINT, when);
}

}  // namespace

TEST_CASE("a config nested 15,000 deep is a usage error, not a stack overflow") {
  TempDir dir;
  const auto file = dir.write("deep.toml", deep_key(15000));
  const ProcessResult r = dgxhost({"--plugin", "spin", "-c", file.string()});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("a dotted key has more than 32 parts") != std::string::npos);
}

TEST_CASE("a deeply nested or FIFO preset in --config-dir is skipped with a warning, --list still works") {
  TempDir dir;
  dir.write("workloads/deep.toml", deep_key(15000));
  REQUIRE(::mkfifo((dir.path() / "workloads" / "fifo.toml").c_str(), 0600) == 0);
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult r = dgxhost({"--config-dir", dir.path().string(), "--list"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("spin 1.0.0") != std::string::npos);
  CHECK(r.err.find("deep.toml ignored") != std::string::npos);
  CHECK(r.err.find("fifo.toml ignored") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(60));  // a FIFO would block for ever
}

TEST_CASE("-c with a FIFO, a directory or /dev/zero is refused at once") {
  TempDir dir;
  const auto fifo = dir.path() / "fifo.toml";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  for (const std::string& path : {fifo.string(), dir.path().string(), std::string("/dev/zero")}) {
    const auto start = std::chrono::steady_clock::now();
    const ProcessResult r = dgxhost({"--plugin", "spin", "-c", path});
    CHECK_MESSAGE(r.exit_code == 2, path);
    CHECK_MESSAGE(r.err.find("not a regular file") != std::string::npos, r.err);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(60));  // a FIFO would block for ever
  }
}

TEST_CASE("compare and --baseline refuse a FIFO, /dev/zero and a document nested 100,000 deep at once, exit 2") {
  TempDir dir;
  const auto good = dir.path() / "a.json";
  REQUIRE(dgxhost(std::vector<std::string>{"--plugin", "spin", "--set", "spin.us=100", "-o", good.string()} + kQuick)
              .exit_code == 0);
  const auto fifo = dir.path() / "fifo.json";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const auto deep = dir.write("deep.json", std::string(100000, '[') + std::string(100000, ']'));
  const std::map<std::string, std::string> expected = {
      {fifo.string(), "results file " + fifo.string() + ": is a FIFO, not a regular file"},
      {"/dev/zero", "results file /dev/zero: is a character device, not a regular file"},
      {deep.string(), deep.string() + ": line 1: arrays or objects nest more than 32 deep; dgxhost refuses documents "
                                      "nested this deeply"}};
  for (const auto& entry : expected) {
    const std::string path = entry.first;  // not a structured binding: clang 14 cannot capture one in CHECK
    const std::string message = entry.second;
    const auto start = std::chrono::steady_clock::now();
    ProcessResult r = dgxhost({"compare", good.string(), path});
    CHECK_MESSAGE(r.exit_code == 2, path);
    CHECK_MESSAGE(r.err.find("dgxhost: compare: " + message) != std::string::npos, r.err);
    r = dgxhost({"--plugin", "spin", "--baseline", path});
    CHECK_MESSAGE(r.exit_code == 2, path);
    CHECK_MESSAGE(r.err.find("--baseline " + path + ": " + message) != std::string::npos, r.err);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(60));  // a FIFO would block for ever
  }
}

TEST_CASE("a mistyped results file names the file, the JSON path and what was expected") {
  TempDir dir;
  const auto good = dir.path() / "a.json";
  REQUIRE(dgxhost(std::vector<std::string>{"--plugin", "spin", "--set", "spin.us=100", "-o", good.string()} + kQuick)
              .exit_code == 0);
  json::Value doc = json::parse([&] {
    std::ifstream in(good);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }());
  json::Object& row = doc.as_object().find("results")->as_array()[0].as_object();
  row.find("metrics")->as_object().find("time.median")->as_object().set("value", "fast");
  const auto fast = dir.write("fast.json", json::write(doc));
  ProcessResult r = dgxhost({"compare", good.string(), fast.string()});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(fast.string() + R"(: $.results[0].metrics["time.median"].value: expected a number or null, found a )"
                                   R"(string ("fast"))") != std::string::npos);
  CHECK(r.err.find("std::") == std::string::npos);
  const auto top = dir.write("top.json", "[1, 2]");
  r = dgxhost({"compare", good.string(), top.string()});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(top.string() + ": $: expected an object, found an array") != std::string::npos);
}

TEST_CASE("range errors give the value and where it came from") {
  TempDir dir;
  const auto file = dir.write("r.toml", "runner.max_time = -inf\n");
  ProcessResult r = dgxhost({"--plugin", "spin", "-c", file.string()});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("runner.max_time must be a finite number > 0, got -inf (" + file.string() + ":1:19)") !=
        std::string::npos);
  r = dgxhost({"--plugin", "spin", "--set", "runner.max_time=1e309"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("beyond the range of a 64-bit float") != std::string::npos);
  r = dgxhost({"--plugin", "all_reduce", "-e", "99999999999T"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("more bytes than a 64-bit integer holds") != std::string::npos);
}

TEST_CASE("with --format json a usage error is still one JSON document on stdout") {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--plugin", "spin", "--set", "runner.max_time=0", "--format", "json"},
        std::vector<std::string>{"--plugn", "spin", "--format=json"},
        std::vector<std::string>{"--plugin", "nosuchthing", "--format", "json"}}) {
    const ProcessResult r = dgxhost(args);
    CHECK(r.exit_code != 0);
    const json::Value doc = json::parse(r.out);
    CHECK(doc["schema"].as_string() == "dgx.results/1");
    CHECK(doc["status"]["exit_code"].as_int() == r.exit_code);
    CHECK_FALSE(doc["status"]["ok"].as_bool());
    CHECK_FALSE(doc["status"]["error"].as_string().empty());
    CHECK(doc["results"].as_array().empty());
  }
}

TEST_CASE("invalid UTF-8 in a path never reaches the JSON output") {
  TempDir dir;
  const auto file = dir.write("\xff\xfe.toml", "runner.max_time = 0\n");
  const ProcessResult r = dgxhost({"--plugin", "spin", "-c", file.string(), "--format", "json"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.find('\xff') == std::string::npos);
  CHECK(json::parse(r.out)["status"]["error"].as_string().find("\xef\xbf\xbd") != std::string::npos);  // U+FFFD
}

TEST_CASE("a --plugin-dir that does not exist is a usage error, misnamed plugin files are named") {
  ProcessResult r = dgxhost({"--plugin-dir", "/nonexistent/plugins", "--list"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--plugin-dir /nonexistent/plugins: No such file or directory") != std::string::npos);
  TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  std::filesystem::copy_file(DGX_TEST_PLUGIN_DIR "/libdgx-spin.so", dir.path() / "spin.so");
  r = dgxhost({"--plugin-dir", dir.path().string(), "--list"});
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("ignored shared objects not named libdgx-<name>.so: spin.so") != std::string::npos);
  r = dgxhost({"--plugin-dir", (dir.path() / "spin.so").string(), "--list"});
  CHECK(r.out.find("spin.so: not named libdgx-<name>.so") != std::string::npos);
}

TEST_CASE("Ctrl-C while a plugin is stuck in run(): the host waits a bounded time, names the call, exits 130") {
  // The plugin's run() loops without asking whether it was cancelled, from the moment it says so on stderr.
  std::chrono::steady_clock::time_point pressed;
  const ProcessResult r = interrupted_when(
      [&](const std::string& err, double) {
        pressed = std::chrono::steady_clock::now();
        return err.find("misbehaving now: busy") != std::string::npos;
      },
      {"--plugin-dir", fixture_dir("misbehaving") + "/run", "--plugin", "misbehave", "--mode", "measure", "--set",
       "misbehave.run=busy", "--set", "misbehave.after=0", "--set", "runner.warmup=0"},
      {{"DGX_INTERRUPT_GRACE_S", "2"}, {"DGX_RUNS_DIR", "off"}});
  CHECK(r.exit_code == 130);
  CHECK(r.err.find("interrupted, and misbehave:misbehave: run() of case 1/1") != std::string::npos);
  CHECK(r.err.find("did not return within 2 s") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - pressed < std::chrono::seconds(20));
}

TEST_CASE("Ctrl-C during a long spin: spin's run() returns, the host reports what it has, exit 130") {
  TempDir dir;  // the run folder's line on stderr says the run has begun: Ctrl-C is the run's to handle then
  const ProcessResult r = interrupted_when(
      [](const std::string& err, double) { return err.find("run folder: ") != std::string::npos; },
      {"--plugin", "spin", "--set", "spin.us=60000000", "--set", "runner.warmup=0", "--format", "json"},
      {{"DGX_RUNS_DIR", (dir.path() / "runs").string()}});
  CHECK(r.exit_code == 130);
  CHECK(dgx::json::parse(r.out)["status"]["exit_code"].as_int() == 130);
}

TEST_CASE("Ctrl-C stops an explore at once: exit 130, a JSON document saying so") {
  std::string gpus = "explore.gpus=[";
  for (int i = 1; i <= 8192; ++i) {
    gpus += (i > 1 ? "," : "") + std::to_string(8 * i);
  }
  gpus += "]";
  // Ctrl-C a second of CPU time into a sweep that takes about 12: what the process spends after it, not the wall
  // time a loaded machine stretches, says whether it stopped at once.
  const ProcessResult r =
      interrupted_when([](const std::string&, double cpu) { return cpu >= 1.0; },
                       {"--plugin", "mixtral8x22b", "--mode", "explore", "--set", gpus, "--set", "system=b200", "--set",
                        R"(precision=["bf16","fp8","mxfp8","nvfp4"])", "--format", "json"},
                       {{"DGX_RUNS_DIR", "off"}});
  CHECK(r.exit_code == 130);
  REQUIRE(r.signal_cpu_seconds >= 0);
  CHECK(r.cpu_seconds - r.signal_cpu_seconds < 3);
  const dgx::json::Value doc = dgx::json::parse(r.out);
  CHECK(doc["status"]["exit_code"].as_int() == 130);
}

TEST_CASE("a comm sweep whose buffers exceed the machine's memory is a config error naming the key and the need") {
  const ProcessResult r = dgxhost({"--plugin", "all_reduce", "--set", "comm.max_bytes=1e18"});
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(r.err.find("comm:all_reduce: invalid configuration: comm.max_bytes (-e) 1000000000000000000: the "
                           "largest case needs ") != std::string::npos,
                r.err);
  CHECK(r.err.find(" GiB of host memory") != std::string::npos);
  CHECK(r.err.find("more than this machine's ") != std::string::npos);
  CHECK(r.err.find("bad_alloc") == std::string::npos);
}

TEST_CASE("counts are range-checked before they become an int: comm -w and -r, spin.us") {
  ProcessResult r = dgxhost({"--plugin", "all_reduce", "-w", "99999999999"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("comm.warmup must be <= 2147483647, got 99999999999") != std::string::npos);
  r = dgxhost({"--plugin", "all_reduce", "-r", "4294967296"});  // 2^32 would become rank 0
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("comm.root 4294967296 is not a rank") != std::string::npos);
  r = dgxhost({"--plugin", "spin", "--set", "spin.us=9223372036854775807"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("spin.us must be in 0..") != std::string::npos);
}

TEST_CASE("runner.max_time bounds the comm warm-up operations too") {
  // 2e9 warm-up operations take minutes of CPU; bounded by max_time they take a second or so of it.
  const ProcessResult r = dgxhost({"--plugin", "all_reduce", "-w", "2000000000", "-b", "1K", "-e", "1K", "--set",
                                   "runner.max_time=1", "--set", "runner.min_time=0.01"});
  CHECK(r.exit_code == 0);
  CHECK(r.cpu_seconds < 30);
}
