// The comm workloads in nccl-tests' language (issue 14): the table reads like all_reduce_perf's, nccl-tests' -o, -c
// and -m keep their meaning or are refused, and the columns of one quantity share one unit.
#include <doctest/doctest.h>

#include <filesystem>
#include <sstream>

#include "dgx/json/json.hpp"
#include "dgxhost.hpp"
#include "temp_dir.hpp"

using namespace dgx;
using namespace dgx::testing;

namespace {

// The table line of one message size: the first line whose first field is `size`.
std::string line_of_size(const std::string& out, const std::string& size) {
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string first;
    if (fields >> first && first == size) {
      return line;
    }
  }
  return {};
}

}  // namespace

TEST_CASE("a comm sweep prints nccl-tests' table: integer sizes, us, out-of-place and in-place side by side") {
  const ProcessResult r = dgxhost({"--plugin", "all_reduce", "-b", "8", "-e", "64K", "-q"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("all_reduce (measured)") != std::string::npos);
  const auto groups = r.out.find("out-of-place");
  REQUIRE(groups != std::string::npos);
  CHECK(r.out.find("in-place", groups) != std::string::npos);
  CHECK(r.out.find("size [B]  count [elements]  type  redop  root  time [us]  algbw [GB/s]  busbw [GB/s]  #wrong") !=
        std::string::npos);
  const std::string line = line_of_size(r.out, "65536");  // an integer byte count, not "64.00 KiB" or "65.54k"
  REQUIRE(!line.empty());
  std::istringstream fields(line);
  std::string size, count, type, redop, root;
  fields >> size >> count >> type >> redop >> root;
  CHECK(count == "16384");
  CHECK(type == "fp32");
  CHECK(redop == "sum");
  CHECK(root == "-1");
  CHECK(r.out.find("Out of bounds values : 0 OK") != std::string::npos);
  CHECK(r.out.find("Avg bus bandwidth    : ") != std::string::npos);
}

TEST_CASE("broadcast prints its root and no reduction, as nccl-tests does") {
  const ProcessResult r = dgxhost({"--plugin", "broadcast", "-b", "64", "-e", "64", "-q"});
  REQUIRE(r.exit_code == 0);
  std::istringstream fields(line_of_size(r.out, "64"));
  std::string size, count, type, redop, root;
  fields >> size >> count >> type >> redop >> root;
  CHECK(redop == "none");
  CHECK(root == "0");
}

TEST_CASE("-o max is nccl-tests' reduction: it sets comm.op and writes no file named max") {
  TempDir dir;
  const ProcessResult r = dgxhost({"--plugin", "all_reduce", "-b", "8", "-e", "8", "-o", "max", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const json::Value doc = json::parse(r.out);
  CHECK(doc["context"]["config"]["comm.op"].as_string() == "max");
  CHECK(doc["context"]["config_sources"]["comm.op"].as_string() == "-o max");
  CHECK(!std::filesystem::exists("max"));
  // A file name keeps dgxhost's meaning.
  const std::string file = (dir.path() / "r.json").string();
  CHECK(dgxhost({"--plugin", "all_reduce", "-b", "8", "-e", "8", "-o", file, "-q"}).exit_code == 0);
  CHECK(std::filesystem::exists(file));
}

TEST_CASE("-c 0 is nccl-tests' check switch: comm.check off, #wrong reads N/A") {
  const ProcessResult r = dgxhost({"--plugin", "all_reduce", "-b", "64", "-e", "64", "-c", "0", "-q"});
  REQUIRE(r.exit_code == 0);
  CHECK(line_of_size(r.out, "64").find("N/A") != std::string::npos);
  const ProcessResult j = dgxhost({"--plugin", "all_reduce", "-b", "64", "-e", "64", "-c", "0", "--format", "json"});
  REQUIRE(j.exit_code == 0);
  CHECK(json::parse(j.out)["context"]["config"]["comm.check"].as_bool() == false);
}

TEST_CASE("-m with a number (nccl-tests' agg_iters) is refused with what dgxhost does instead") {
  const ProcessResult r = dgxhost({"--plugin", "all_reduce", "-m", "4"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("agg_iters") != std::string::npos);
  CHECK(r.err.find("--mode") != std::string::npos);
}

TEST_CASE("-o max for a workload without comm.op says what nccl-tests meant and how to name a file") {
  const ProcessResult r = dgxhost({"--plugin", "spin", "-o", "max"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("nccl-tests' reduction operation") != std::string::npos);
  CHECK(r.err.find("--output max") != std::string::npos);
}

TEST_CASE("the time columns of one table share the unit of the median") {
  const ProcessResult r = dgxhost(std::vector<std::string>{"--plugin", "spin", "--set", "spin.us=500"} + kQuick);
  REQUIRE(r.exit_code == 0);
  for (const char* header :
       {"time.median [us]", "time.mean [us]", "time.min [us]", "time.max [us]", "time.stdev [us]"}) {
    CHECK_MESSAGE(r.out.find(header) != std::string::npos, header);
  }
}
