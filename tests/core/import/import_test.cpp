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
  auto rows = import_text("step: 1 tps: 3\n\xff\xfe\n", "x.log", {});
  CHECK(failure_text(rows).find("x.log:2: a binary file, not a log (invalid UTF-8)") == 0);
}

TEST_CASE("a file of no known format lists the formats and shows its first line") {
  const std::string message = failure_text(import_data_file("bad/unknown.txt"));
  CHECK(message.find("not a log of any of: ") != std::string::npos);
  for (const std::string& name : import_formats()) {
    CHECK(message.find(name) != std::string::npos);
  }
  CHECK(message.find("the first line is 'hello world'") != std::string::npos);
}

TEST_CASE("import_formats names every parser, each once") {
  const std::vector<std::string> names = import_formats();
  for (const char* name : {"mlperf-inference", "mlperf", "nccl-tests", "aiperf", "vllm-bench", "trtllm-bench",
                           "megatron-lm", "torchtitan", "nemo"}) {
    CHECK(std::count(names.begin(), names.end(), name) == 1);
  }
}

TEST_CASE("import_files reports the files, tools and versions in its context") {
  ::setenv("DGX_CONFIG_PATH", DGX_TEST_CONFIG_DIR, 1);
  auto report = import_files({import_data("nccl-tests/all_reduce_8xh100.txt")}, {});
  REQUIRE(report);
  CHECK(report->rows.size() == 18);
  const json::Value* files = report->context.find("import")->as_object().find("files");
  REQUIRE(files != nullptr);
  CHECK(files->as_array()[0]["tool"].as_string() == "nccl-tests");
  CHECK(files->as_array()[0]["tool_version"].as_string() == "2.13.11");
}

TEST_CASE("an unknown model name asks for --set model") {
  auto rows = import_text("Model: foo-13b\n= PERFORMANCE OVERVIEW\nRequest Throughput (req/sec): 1.0\n", "r.txt",
                          {"system=b200", "gpus=1"});
  CHECK(
      failure_text(rows).find("the model 'foo-13b' is not one the catalog knows by that name: add --set model=NAME") !=
      std::string::npos);
}
