// --format junit and --format prometheus as CI jobs and node_exporter's textfile collector meet them (issue 26):
// real runs (spin, an all_reduce sweep, a projected llama70b explore) and every command that reads results, checked
// by promtool and by xmllint against the JUnit schema; -o FILE.xml and FILE.prom; a report Prometheus cannot hold.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "dgx/json/json.hpp"
#include "dgxhost.hpp"
#include "format_checkers.hpp"
#include "temp_dir.hpp"

using namespace dgx::testing;

namespace {

std::string read(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string import_data(const char* relative) { return std::string(DGX_TEST_IMPORT_DATA) + "/" + relative; }

std::vector<std::string> spin_args() {
  return std::vector<std::string>{"--plugin", "spin", "--set", "spin.us=200"} + kQuick;
}
std::vector<std::string> sweep_args() {
  return std::vector<std::string>{"--plugin", "all_reduce", "-b", "1K", "-e", "64K", "-f", "4"} + kQuick;
}
std::vector<std::string> explore_args() { return {"--plugin", "llama70b", "--set", "explore.gpus=64,128"}; }
// A recorded Megatron-LM run below its reference and its projection: a verdict of fail, and slower, whatever the
// machine.
std::vector<std::string> verdict_of_log() {
  return {"verdict",           import_data("megatron-lm/llama70b_tp4pp4.log"), "--set", "system=h100-sxm", "--set",
          "model=llama3.1-70b"};
}

void check_promtool(const ProcessResult& run, const std::string& what) {
  CHECK_MESSAGE(run.out.starts_with("# HELP dgx_report_exit_code "), what, ": ", run.err);
  const ProcessResult check = promtool_check(run.out);
  CHECK_MESSAGE(check.exit_code == 0, what, ": ", check.out, check.err);
  CHECK_MESSAGE(check.out.empty(), what, ": ", check.out);
  CHECK_MESSAGE(check.err.empty(), what, ": ", check.err);
}

void check_schema(const ProcessResult& run, const std::string& what) {
  CHECK_MESSAGE(run.out.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "), what, ": ", run.err);
  const ProcessResult check = junit_validate(run.out);
  CHECK_MESSAGE(check.exit_code == 0, what, ": ", check.err);
}

}  // namespace

TEST_CASE("a spin run, an all_reduce sweep and a projected llama70b explore pass promtool check metrics") {
  if (!have_tool("promtool", "prometheus")) {
    return;
  }
  const ProcessResult spin = dgxhost(spin_args() + std::vector<std::string>{"--format", "prometheus"});
  CHECK(spin.exit_code == 0);
  check_promtool(spin, "spin");
  CHECK(spin.out.find("dgx_time_median_seconds{") != std::string::npos);
  CHECK(spin.out.find("dgx_report_exit_code{") != std::string::npos);

  const ProcessResult sweep = dgxhost(sweep_args() + std::vector<std::string>{"--format", "prometheus"});
  CHECK(sweep.exit_code == 0);
  check_promtool(sweep, "all_reduce");
  // nccl-tests' lines by size, out-of-place and in-place apart.
  CHECK(sweep.out.find("dgx_busbw_bytes_per_second{") != std::string::npos);
  CHECK(sweep.out.find("workload=\"all_reduce\",mode=\"measured\",placement=\"in-place\",size=\"65536\"} ") !=
        std::string::npos);
  CHECK(sweep.out.find("dgx_algbw_bytes_per_second{") != std::string::npos);

  const ProcessResult explore = dgxhost(explore_args() + std::vector<std::string>{"--format", "prometheus", "-q"});
  CHECK(explore.exit_code == 0);
  check_promtool(explore, "llama70b explore");
  CHECK(explore.out.find("dgx_mfu_ratio{") != std::string::npos);
  CHECK(explore.out.find("preset=\"llama70b\"") != std::string::npos);
  CHECK(explore.out.find("mode=\"projected\",table=\"explore\",gpus=\"128\",precision=\"fp8\"") != std::string::npos);
  CHECK(explore.out.find("dgx_seconds_to_train{") != std::string::npos);
}

TEST_CASE("compare, import, verdict and the platform check write Prometheus that promtool accepts") {
  if (!have_tool("promtool", "prometheus")) {
    return;
  }
  TempDir dir;
  const std::string a = (dir.path() / "a.json").string();
  REQUIRE(dgxhost(spin_args() + std::vector<std::string>{"-o", a}).exit_code == 0);
  const ProcessResult compare = dgxhost({"compare", a, a, "--format", "prometheus"});
  CHECK(compare.exit_code == 0);
  check_promtool(compare, "compare");
  CHECK(compare.out.find("verdict=\"no significant difference\"} 1\n") != std::string::npos);

  const ProcessResult import =
      dgxhost({"import", import_data("nccl-tests/all_reduce_8xh100.txt"), "--format", "prometheus"});
  CHECK(import.exit_code == 0);
  check_promtool(import, "import");
  CHECK(import.out.find("size=\"134217728\"} ") != std::string::npos);

  const ProcessResult verdict = dgxhost(verdict_of_log() + std::vector<std::string>{"--format", "prometheus"});
  CHECK(verdict.exit_code == 5);
  check_promtool(verdict, "verdict");
  CHECK(verdict.out.find("dgx_report_exit_code{workload=\"verdict\"} 5\n") != std::string::npos);
  CHECK(verdict.out.find("verdict=\"fail\"} 1\n") != std::string::npos);
  CHECK(verdict.out.find("dgx_verdict_projection{") != std::string::npos);

  // Without a GPU its plan: one reference per system it applies to, told apart by their systems.
  const ProcessResult check = dgxhost({"--plugin", "platform-check", "--format", "prometheus"});
  check_promtool(check, "platform-check");
  CHECK(check.out.find("dgx_report_exit_code{") != std::string::npos);
  if (check.exit_code == 4) {
    CHECK(check.out.find("systems=\"h200-sxm\"} ") != std::string::npos);
  }
}

TEST_CASE("JUnit of runs and of every command validates against the schema, failures and errors where CI looks") {
  if (!have_tool("xmllint", "libxml2-utils")) {
    return;
  }
  const std::vector<std::string> junit{"--format", "junit"};
  const ProcessResult spin = dgxhost(spin_args() + junit);
  CHECK(spin.exit_code == 0);
  check_schema(spin, "spin");
  CHECK(spin.out.find("<testsuite name=\"spin\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"0\"") !=
        std::string::npos);
  CHECK(spin.out.find("<testcase classname=\"dgx.spin.spin\" name=\"200 us\" time=\"") != std::string::npos);

  const ProcessResult sweep = dgxhost(sweep_args() + junit);
  check_schema(sweep, "all_reduce");
  CHECK(sweep.out.find("name=\"comm.placement=in-place, size=65536\"") != std::string::npos);

  check_schema(dgxhost(explore_args() + junit), "llama70b explore");
  check_schema(
      dgxhost(explore_args() + std::vector<std::string>{"--mode", "project", "--baseline", "published"} + junit),
      "--baseline published");

  const ProcessResult verdict = dgxhost(verdict_of_log() + junit);
  CHECK(verdict.exit_code == 5);
  check_schema(verdict, "verdict");
  CHECK(verdict.out.find("<testsuites name=\"dgxhost verdict\" tests=\"3\" failures=\"1\" errors=\"0\"") !=
        std::string::npos);
  CHECK(verdict.out.find("<failure message=\"fail: tokens_per_s_per_gpu") != std::string::npos);

  check_schema(dgxhost({"import", import_data("nccl-tests/all_reduce_8xh100.txt"), "--format", "junit"}), "import");

  const ProcessResult check = dgxhost({"--plugin", "platform-check", "--format", "junit"});
  check_schema(check, "platform-check");
  if (check.exit_code == 4) {  // no GPU: the plan, and the report's error for CI
    CHECK(check.out.find("<error message=\"platform-check needs a GPU") != std::string::npos);
  }
  // A failure before any run still gives CI a report with the error.
  const ProcessResult unknown = dgxhost({"--plugin", "spni", "--format", "junit"});
  CHECK(unknown.exit_code == 3);
  check_schema(unknown, "unknown plugin");
  CHECK(unknown.out.find("type=\"exit code 3\"") != std::string::npos);
}

TEST_CASE("-o FILE.xml and FILE.prom take their format from the extension, and the .prom is replaced atomically") {
  TempDir dir;
  const auto prom = dir.write("dgx.prom", "# an older file\n");
  struct stat before {};
  REQUIRE(::stat(prom.c_str(), &before) == 0);
  const ProcessResult run = dgxhost(spin_args() + std::vector<std::string>{"-o", prom.string()});
  CHECK(run.exit_code == 0);
  CHECK(run.out.find("time.median") != std::string::npos);  // stdout keeps its table
  const std::string written = read(prom);
  CHECK(written.starts_with("# HELP dgx_report_exit_code "));
  // A new file renamed over the old one (what the textfile collector needs: it never reads half a file), and no
  // temporary left beside it.
  struct stat after {};
  REQUIRE(::stat(prom.c_str(), &after) == 0);
  CHECK(after.st_ino != before.st_ino);
  std::size_t entries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    CHECK_MESSAGE(!entry.path().filename().string().starts_with("."), entry.path());
    ++entries;
  }
  CHECK(entries == 1);
  CHECK(dgxhost(spin_args() + std::vector<std::string>{"-o", (dir.path() / "dgx.xml").string()}).exit_code == 0);
  CHECK(read(dir.path() / "dgx.xml").starts_with("<?xml"));

  const ProcessResult compare = dgxhost({"compare", "--help"});
  CHECK(compare.out.find("junit") != std::string::npos);
  CHECK(compare.out.find(".xml .prom") != std::string::npos);
  CHECK(dgxhost({"--help"}).out.find("prometheus") != std::string::npos);
}

TEST_CASE("a report whose rows Prometheus cannot tell apart fails with exit 2 naming them, its other outputs kept") {
  TempDir dir;
  const std::string a = (dir.path() / "a.json").string();
  REQUIRE(dgxhost(spin_args() + std::vector<std::string>{"-o", a}).exit_code == 0);
  // The same case twice in one results file: its comparison has two rows nothing tells apart.
  dgx::json::Value doc = dgx::json::parse(read(a));
  dgx::json::Array& rows = doc.as_object().find("results")->as_array();
  REQUIRE(rows.size() == 1);
  rows.push_back(dgx::json::Value(rows.front()));
  const auto twice = dir.write("twice.json", dgx::json::write(doc));
  const ProcessResult stdout_prom = dgxhost({"compare", twice.string(), twice.string(), "--format", "prometheus"});
  CHECK(stdout_prom.exit_code == 2);
  CHECK(stdout_prom.out.empty());
  CHECK(stdout_prom.err.find("row 1 (compare time.median (lower is better), 200 us) and row 2 (compare "
                             "time.median (lower is better), 200 us) would be the same Prometheus series") !=
        std::string::npos);
  const std::string file = (dir.path() / "twice.prom").string();
  const std::string json = (dir.path() / "twice-compare.json").string();
  const ProcessResult to_file = dgxhost({"compare", twice.string(), twice.string(), "-o", file});
  CHECK(to_file.exit_code == 2);
  CHECK(to_file.out.find("200 us") != std::string::npos);  // the table is still shown
  CHECK_FALSE(std::filesystem::exists(file));
  CHECK(dgxhost({"compare", twice.string(), twice.string(), "-o", json}).exit_code == 0);  // JSON holds it
}
