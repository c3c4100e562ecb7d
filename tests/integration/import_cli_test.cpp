// dgxhost import as users run it (issue 25): each format to JSON rows, -o FILE, and every kind of bad input as a
// usage failure (exit 2) whose message names the file.
#include <doctest/doctest.h>

#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "dgx/json/json.hpp"
#include "dgxhost.hpp"
#include "temp_dir.hpp"

using namespace dgx;
using namespace dgx::testing;

namespace {

std::string data(const std::string& relative) { return std::string(DGX_TEST_IMPORT_DATA) + "/" + relative; }

ProcessResult import(const std::vector<std::string>& args) {
  return dgxhost(std::vector<std::string>{"import"} + args);
}

json::Array results_of(const ProcessResult& r) {
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  json::Value doc = json::parse(r.out);
  CHECK(doc["schema"].as_string() == "dgx.results/1");
  return doc["results"].as_array();
}

struct Case {
  const char* file;
  std::vector<std::string> sets;
  const char* tool;
  std::size_t rows;
};

}  // namespace

TEST_CASE("dgxhost import turns each format into measured rows of dgx.results/1") {
  const Case cases[] = {
      {"torchtitan/llama3_8b.log", {"precision=bf16"}, "torchtitan", 1},
      {"nemo/llama3_70b.log",
       {"precision=fp8", "system=h100-sxm", "gpus=64", "model=llama3.1-70b", "train.seq_len=8192"},
       "nemo",
       1},
      {"megatron-lm/llama70b_tp4pp4.log", {"system=h100-sxm", "model=llama3.1-70b"}, "megatron-lm", 1},
      {"mlperf/llama31_405b_result_0.txt", {"system=h100-sxm", "gpus=512", "precision=fp8"}, "mlperf", 1},
      {"nccl-tests/all_reduce_8xh100.txt", {}, "nccl-tests", 18},
      {"aiperf/profile_export_aiperf.json", {"system=h100-sxm", "gpus=4"}, "aiperf", 1},
      {"vllm-bench/vllm-1000-64.json", {"system=h200-sxm", "gpus=1"}, "vllm-bench", 1},
      {"trtllm-bench/llama3.1-8b_fp8_throughput.txt", {"system=b200"}, "trtllm-bench", 1},
  };
  for (const Case& c : cases) {
    CAPTURE(c.file);
    std::vector<std::string> args = {data(c.file), "--format", "json"};
    for (const std::string& s : c.sets) {
      args.insert(args.end(), {"--set", s});
    }
    const json::Array rows = results_of(import(args));
    REQUIRE(rows.size() == c.rows);
    CHECK(rows[0]["mode"].as_string() == "measured");
    CHECK(rows[0]["info"]["source"].as_string().rfind(std::string("imported: ") + c.tool, 0) == 0);
    CHECK(rows[0]["label"].as_string() == c.tool);
    CHECK(rows[0]["info"]["file"].as_string().find(std::filesystem::path(c.file).filename().string()) !=
          std::string::npos);
  }
}

TEST_CASE("dgxhost import -o writes the rows to the file as well") {
  TempDir dir;
  const std::string out = (dir.path() / "imported.json").string();
  const ProcessResult r = import({data("nccl-tests/all_reduce_8xh100.txt"), "-o", out});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("imported nccl-tests (measured)") != std::string::npos);  // the nccl-tests layout on stdout
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  const json::Value doc = json::parse(text.str());
  CHECK(doc["results"].as_array().size() == 18);
  CHECK(doc["context"]["import"]["files"][0]["tool"].as_string() == "nccl-tests");
}

TEST_CASE("dgxhost import refuses bad input with exit 2 and a message naming the file") {
  const std::pair<std::vector<std::string>, const char*> cases[] = {
      {{data("bad/empty.txt")}, "the file is empty"},
      {{data("bad/binary.bin")}, "a binary file"},
      {{data("bad/unknown.txt")}, "not a log of any of: "},
      {{data("vllm-bench/truncated.json"), "--set", "system=h200-sxm"}, "truncated JSON"},
      {{data("nccl-tests/cut_mid_row.txt")}, "cut_mid_row.txt:26: a table line with 3 of nccl-tests' 13 columns"},
      {{data("torchtitan/crashed.log"), "--set", "precision=bf16"}, "no steady state: the run logged only 3 steps"},
      {{data("mlperf/two_runs.txt"), "--set", "system=h100-sxm", "--set", "gpus=512", "--set", "precision=fp8"},
       "two runs in one file"},
      {{data("megatron-lm/llama70b_tp4pp4.log"), "--set", "system=h100-sxm", "--set", "model=llama3.1-70b", "--set",
        "gpus=128"},
       "the log says gpus=64 but --set gpus=128 contradicts it"},
      {{data("aiperf/cancelled.json"), "--set", "system=h100-sxm", "--set", "gpus=4"}, "an unfinished AIPerf run"},
      {{data("nemo/llama3_70b.log"), "--set", "precision=fp8", "--set", "gpus=64", "--set", "model=llama3.1-70b",
        "--set", "train.seq_len=8192"},
       "the log does not print the system: add --set system=NAME (one of"},
  };
  for (const auto& c : cases) {
    const std::vector<std::string>& args = c.first;
    const std::string expected = c.second;
    CAPTURE(args[0]);
    const ProcessResult r = import(args);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());  // no partial row
    CHECK_MESSAGE(r.err.find(expected) != std::string::npos, r.err);
    CHECK(r.err.find(std::filesystem::path(args[0]).filename().string()) != std::string::npos);
  }
}

TEST_CASE("dgxhost import --help names the formats and the exit codes") {
  const ProcessResult r = import({"--help"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("torchtitan") != std::string::npos);
  CHECK(r.out.find("Exit codes") != std::string::npos);
}

TEST_CASE("dgxhost import --inspect shows what a log says by itself, with no --set, as text or JSON") {
  const ProcessResult text = import({"--inspect", data("nemo/llama3_70b.log")});
  REQUIRE_MESSAGE(text.exit_code == 0, text.err);
  CHECK(text.out.find("nemo (training, llm-pretrain), lines 13-62") != std::string::npos);
  CHECK(text.out.find("steady state: median of 45 steps, 5 warm-up steps dropped") != std::string::npos);
  CHECK(text.out.find("step_time: 12.63 s") != std::string::npos);
  CHECK(text.out.find("prints train.gbs = 128 (line 13)") != std::string::npos);

  const ProcessResult json_out = import({"--inspect", "--format", "json", data("nemo/llama3_70b.log")});
  REQUIRE_MESSAGE(json_out.exit_code == 0, json_out.err);
  const json::Value reading = json::parse(json_out.out)[0];
  CHECK(reading["tool"].as_string() == "nemo");
  CHECK(reading["values"][0]["name"].as_string() == "step_time");
  CHECK(reading["values"][0]["value"].as_number() == doctest::Approx(12.63));

  const ProcessResult csv = import({"--inspect", "--format", "csv", data("nemo/llama3_70b.log")});
  CHECK(csv.exit_code == 2);
  CHECK(csv.err.find("--inspect prints a table or JSON") != std::string::npos);
}

TEST_CASE("a plugin's reader that throws, crashes or misreports fails the import naming the plugin, never silently") {
  const TempDir dir;
  const std::string good = std::string(DGX_TEST_FIXTURE_DIR) + "/good";
  auto import_text = [&](const std::string& name, const std::string& text) {
    return import({"--plugin-dir", good, dir.write(name, text).string()});
  };
  const auto threw = import_text("threw.log", "THROWER throw\n");
  CHECK(threw.exit_code == 1);
  CHECK(threw.err.find("plugin thrower failed to read") != std::string::npos);
  CHECK(threw.err.find("boom in read") != std::string::npos);
  const auto crashed = import_text("crashed.log", "THROWER crash\n");
  CHECK(crashed.exit_code == 6);
  CHECK(crashed.err.find("thrower: read() of format thrower-log") != std::string::npos);
  const auto misreported = import_text("unit.log", "THROWER unit\n");
  CHECK(misreported.exit_code == 1);
  CHECK(misreported.err.find("'fortnights'") != std::string::npos);
}

TEST_CASE("a FIFO, a device or a directory is refused at once, naming what it is") {
  const TempDir dir;
  const std::string fifo = (dir.path() / "pipe.log").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  for (const std::string& path : {fifo, std::string("/dev/null"), dir.path().string()}) {
    CAPTURE(path);
    for (const char* flag : {"--format", "--inspect"}) {
      std::vector<std::string> args = {path};
      if (std::string(flag) == "--inspect") {
        args.emplace_back(flag);
      }
      const ProcessResult r = import(args);
      CHECK(r.exit_code == 2);
      CHECK(r.err.find("not a regular file") != std::string::npos);
    }
  }
}

TEST_CASE("a reader of ABI 1.2, which knows only the request's text, is still handed the whole file") {
  // 6 MiB with launcher prefixes: more than the 4 MiB head a streaming reader gets as its text.
  const TempDir dir;
  std::string text = "[rank0]:OLDREADER\n";
  for (int i = 0; i < 100000; ++i) {
    text += "[rank0]:" + std::string(56, 'x') + "\n";
  }
  const std::string path = dir.write("old.log", text).string();
  const ProcessResult r =
      import({"--plugin-dir", std::string(DGX_TEST_FIXTURE_DIR) + "/old-reader", path, "--format", "json"});
  const json::Array rows = results_of(r);
  REQUIRE(rows.size() == 1);
  const std::size_t cleaned = text.size() - 100001 * std::string("[rank0]:").size();  // the prefixes taken off
  CHECK(rows[0]["metrics"]["bytes"]["value"].as_number() == static_cast<double>(cleaned));
  CHECK(rows[0]["metrics"]["lines"]["value"].as_number() == 100001);
}

TEST_CASE("a 40 MB training log is read a line at a time: memory grows with its steps, not with the file") {
  // torchtitan's log with 2,000 steps, each followed by 200 lines of other output (as a chatty trainer prints):
  // every step must be read (the file's last line is in the row), and the import must not hold the file.
  const std::string original = [] {
    std::ifstream in(data("torchtitan/llama3_8b.log"));
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }();
  const std::size_t first_step = original.find("[rank0]:[titan] 2025-03-04 10:00:07,013");
  REQUIRE(first_step != std::string::npos);
  const std::string step_line =
      "[rank0]:[titan] 2025-03-04 10:01:10,130 - root - INFO - \x1b[31mstep: STEP  \x1b[32mloss: 11.5000  "
      "\x1b[33mmemory: 47.31GiB(49.80%)  \x1b[34mtps: 6,651  \x1b[36mtflops: 385.23  \x1b[35mmfu: 38.95%\x1b[39m\n";
  const std::string noise =
      "[rank0]:[titan] 2025-03-04 10:01:10,131 - root - INFO - dataloader: shard 17 of c4, prefetch queue 8/8 ok\n";
  const TempDir dir;
  const std::string path = (dir.path() / "chatty.log").string();
  constexpr int kSteps = 2000;
  {
    std::ofstream out(path);
    out << original.substr(0, first_step);
    for (int step = 1; step <= kSteps; ++step) {
      std::string line = step_line;
      line.replace(line.find("STEP"), 4, std::to_string(step));
      out << line;
      for (int i = 0; i < 200; ++i) {
        out << noise;
      }
    }
  }
  const double file_mb = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
  REQUIRE(file_mb > 40);
  // A sanitizer build keeps freed memory in quarantine (256 MB by default), which would count every line read.
  const std::map<std::string, std::string> env =
#if defined(__SANITIZE_ADDRESS__)
      {{"ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0:quarantine_size_mb=1"}};
#else
      {};
#endif
  const ProcessResult small = dgxhost({"import", data("torchtitan/llama3_8b.log"), "--set", "precision=bf16"}, env);
  REQUIRE_MESSAGE(small.exit_code == 0, small.err);
  const ProcessResult large = dgxhost({"import", path, "--set", "precision=bf16", "--format", "json"}, env);
  const json::Array rows = results_of(large);
  REQUIRE(rows.size() == 1);
  const int last_line =
      static_cast<int>(std::count(original.begin(), original.begin() + first_step, '\n')) + kSteps * 201;
  CHECK(rows[0]["info"]["file"].as_string() == path + ":1-" + std::to_string(last_line));
  const std::string steady = rows[0]["info"]["steady_state"].as_string();
  CHECK_MESSAGE(steady.find("median of " + std::to_string(kSteps - kSteps / 10) + " steps") == 0, steady);
  const double grown_mb = static_cast<double>(large.max_rss_kib - small.max_rss_kib) * 1024 / 1e6;
  // Held whole, the file alone would be 43 MB more (it grew by 92 MB before the import streamed); streamed, it is
  // the 4 MiB head a reader is handed, a 1 MiB read block and the steps (9 MB here).
  CHECK_MESSAGE(grown_mb < file_mb / 2,
                "peak RSS grew by " << grown_mb << " MB from a small log to a " << file_mb << " MB one");
}

TEST_CASE("a 17.5 MB nccl-tests log of one row repeated 150,000 times imports in memory bounded by its size") {
  const TempDir dir;
  const std::string path = (dir.path() / "repeated.txt").string();
  {
    std::ofstream out(path);
    out << "# nccl-tests version 2.13.11 nccl-headers=22105 nccl-library=22105\n"
           "# Collective test starting: all_reduce_perf\n"
           "#  Rank  0 Group  0 Pid  41230 on  dgx-h100-01 device  0 [0x1b] NVIDIA H100 80GB HBM3\n"
           "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   "
           "busbw #wrong\n"
           "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  "
           "(GB/s)\n";
    for (int i = 0; i < 150000; ++i) {
      out << "   134217728      33554432     float     sum      -1    628.6  213.52  373.65      0    622.3  215.67  "
             "377.43      0\n";
    }
  }
  const double file_mb = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
  REQUIRE(file_mb > 17);
  const ProcessResult r = import({path, "--format", "json"});
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  rusage usage{};
  REQUIRE(::getrusage(RUSAGE_CHILDREN, &usage) == 0);
  const double peak_mb = static_cast<double>(usage.ru_maxrss) * 1024 / 1e6;  // ru_maxrss is in KiB on Linux
  // A few times the file, with room for a sanitizer build's shadow memory; it was 4.5 GB (every line a row).
  CHECK_MESSAGE(peak_mb < 16 * file_mb + 100, "peak RSS " << peak_mb << " MB for a " << file_mb << " MB file");
}
