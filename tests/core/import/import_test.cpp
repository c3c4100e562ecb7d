// import.cpp: what is refused before any parser runs, and import_files' report.
#include <doctest/doctest.h>

#include <algorithm>

#include "import_fixture.hpp"

using namespace dgx;
using namespace dgx::testing;

TEST_CASE("an empty file is refused") {
  CHECK(failure_text(import_data_file("bad/empty.txt")) == "bad/empty.txt: the file is empty: nothing to import");
}

TEST_CASE("a binary file is refused, naming the line of the NUL byte") {
  CHECK(failure_text(import_data_file("bad/binary.bin")).find("bad/binary.bin:1: a binary file") == 0);
}

TEST_CASE("invalid UTF-8 is refused as binary") {
  auto rows = importer().import_text("step: 1 tps: 3\n\xff\xfe\n", "x.log", {});
  CHECK(failure_text(rows).find("x.log:2: a binary file, not a log (invalid UTF-8)") == 0);
}

TEST_CASE("a file of no known format lists the formats and shows its first line") {
  const std::string message = failure_text(import_data_file("bad/unknown.txt"));
  CHECK(message.find("not a log of any of: ") != std::string::npos);
  for (const std::string& name : importer().formats()) {
    CHECK(message.find(name) != std::string::npos);
  }
  CHECK(message.find("the first line is 'hello world'") != std::string::npos);
}

TEST_CASE("the plugins of each domain read its formats, each format once: the host names none") {
  const std::vector<std::string> names = importer().formats();
  for (const char* name : {"mlperf-inference", "mlperf", "nccl-tests", "aiperf", "genai-perf", "sglang-bench",
                           "vllm-bench", "trtllm-bench", "megatron-lm", "torchtitan", "nemo"}) {
    CHECK(std::count(names.begin(), names.end(), name) == 1);
  }
  // The rows belong to the plugin whose workload they are, whichever plugin read them.
  auto nccl = import_data_file("nccl-tests/all_reduce_8xh100.txt", {"system=h100-sxm"});
  REQUIRE(nccl);
  CHECK(nccl->front().plugin == "comm");
  CHECK(nccl->front().label == "nccl-tests");
}

TEST_CASE("import_files reports the files, tools and versions in its context") {
  ::setenv("DGX_CONFIG_PATH", DGX_TEST_CONFIG_DIR, 1);
  auto report = importer().import_files({import_data("nccl-tests/all_reduce_8xh100.txt")}, {});
  REQUIRE(report);
  CHECK(report->rows.size() == 18);
  const json::Value* files = report->context.find("import")->as_object().find("files");
  REQUIRE(files != nullptr);
  CHECK(files->as_array()[0]["tool"].as_string() == "nccl-tests");
  CHECK(files->as_array()[0]["tool_version"].as_string() == "2.13.11");
}

TEST_CASE("an unknown model name asks for --set model") {
  auto rows = importer().import_text("Model: foo-13b\n= PERFORMANCE OVERVIEW\nRequest Throughput (req/sec): 1.0\n",
                                     "r.txt", {"system=b200", "gpus=1"});
  CHECK(
      failure_text(rows).find("the model 'foo-13b' is not one the catalog knows by that name: add --set model=NAME") !=
      std::string::npos);
}

namespace {

// A torchtitan log of two ranks under torchrun, interleaved, rank 1 taking `slower` times as long per step.
std::string two_ranks(double slower) {
  std::string text;
  for (int step = 1; step <= 10; ++step) {
    for (int rank = 0; rank < 2; ++rank) {
      const double tps = (step == 1 ? 3000.0 : 10000.0 + 10 * (step % 3)) / (rank == 1 ? slower : 1.0);
      text += "[rank" + std::to_string(rank) + "]:[titan] 2025-07-21 15:57:4" + std::to_string(step % 10) +
              ",774 - root - INFO - step: " + std::to_string(step) +
              "  loss:  4.99  memory:  10.00GiB(10.00%)  tps: " + std::to_string(static_cast<int>(tps)) +
              "  tflops: 300.0  mfu: 30.0%\n";
    }
  }
  return text;
}

}  // namespace

TEST_CASE("a rank slower than the others by more than 5% is named a straggler, ranks alike are not") {
  // The host reads each rank through the plugin's reader and compares their paces (import.cpp).
  const std::vector<std::string> sets = {"system=h100-sxm", "model=llama3.1-8b", "gpus=2",
                                         "precision=bf16",  "train.gbs=8",       "train.seq_len=8192"};
  auto slow = importer().import_text(two_ranks(1.2), "ranks.log", sets);
  REQUIRE_MESSAGE(slow, (slow ? std::string() : slow.error().message));
  const std::string note = field_value(slow->front(), "note");
  CHECK_MESSAGE(note.find("rank 1 is a straggler: 20% slower per step than the median of the 2 ranks") !=
                    std::string::npos,
                note);
  auto alike = importer().import_text(two_ranks(1.01), "ranks.log", sets);
  REQUIRE(alike);
  CHECK(field_value(alike->front(), "note").find("straggler") == std::string::npos);
}
