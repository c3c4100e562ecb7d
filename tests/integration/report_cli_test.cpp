// dgxhost report FILE (issue 38): a saved results document written again through the reporters a run uses, in any
// format, an older document (no declarations) included; a saved failed run shown as such; bad input exit 2.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "dgxhost.hpp"
#include "temp_dir.hpp"

using namespace dgx::testing;

namespace {

std::string text_of(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// A results document as a dgxhost of ABI 1.0 wrote it: no "workloads", a failed run's status.
constexpr const char* kOldFailedRun = R"({"schema": "dgx.results/1",
  "status": {"exit_code": 4, "ok": false, "error": "no usable device: no GPU"},
  "context": {"workload": "all_reduce", "config": {"comm.min_bytes": 8}},
  "results": [{"workload": "all_reduce", "plugin": "comm", "mode": "measured", "label": "8 B",
               "config": {"size": 8}, "metrics": {"busbw": {"value": 0.5, "unit": "GB/s"}}}]})";

}  // namespace

TEST_CASE("dgxhost report writes a run's saved results again: the same JSON, and any format through -o") {
  TempDir dir;
  const std::string saved = (dir.path() / "results.json").string();
  const ProcessResult run = dgxhost(
      std::vector<std::string>{"--plugin-dir", DGX_TEST_PLUGIN_DIR, "--plugin", "spin", "-q", "-o", saved} + kQuick);
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const ProcessResult json = dgxhost({"report", saved, "--format", "json"});
  CHECK_MESSAGE(json.exit_code == 0, json.err);
  CHECK(json.out == text_of(saved));  // read back and written again: nothing lost or changed
  const std::string page = (dir.path() / "page.html").string();
  const ProcessResult html = dgxhost({"report", saved, "-o", page});
  CHECK_MESSAGE(html.exit_code == 0, html.err);
  CHECK(html.out.find("spin") != std::string::npos);  // stdout: the table
  CHECK(text_of(page).find("<canvas id=\"chart-1\"") != std::string::npos);
  CHECK(dgxhost({"report", saved, "--format", "csv"}).out.find("workload,") == 0);
}

TEST_CASE("an older results document is rendered, a saved failed run shown as failed while report exits 0") {
  TempDir dir;
  const std::string saved = dir.write("old.json", kOldFailedRun).string();
  const std::string page = (dir.path() / "old.html").string();
  const ProcessResult r = dgxhost({"report", saved, "-o", page});
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("run failed: no usable device: no GPU") != std::string::npos);
  const std::string html = text_of(page);
  CHECK(html.find("exit code 4: no usable device: no GPU") != std::string::npos);
  CHECK(html.find("<canvas id=\"chart-1\"") != std::string::npos);  // the host's own chart of the undeclared rows
}

TEST_CASE("dgxhost report: no file, two files, a file that is not a results document or a bad -o exit 2") {
  TempDir dir;
  const ProcessResult none = dgxhost({"report"});
  CHECK(none.exit_code == 2);
  CHECK(none.err.find("report needs one results file") != std::string::npos);
  const std::string saved = dir.write("old.json", kOldFailedRun).string();
  CHECK(dgxhost({"report", saved, saved}).exit_code == 2);
  const std::string log = dir.write("train.log", "iteration 10/100 | elapsed time per iteration (ms): 900\n").string();
  const ProcessResult text = dgxhost({"report", log});
  CHECK(text.exit_code == 2);
  CHECK(text.err.find("dgxhost: report: " + log + ":") == 0);
  const ProcessResult missing = dgxhost({"report", (dir.path() / "none.json").string()});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("none.json") != std::string::npos);
  const ProcessResult bad_out = dgxhost({"report", saved, "-o", (dir.path() / "page.pdf").string()});
  CHECK(bad_out.exit_code == 2);
  CHECK(bad_out.err.find("unknown extension '.pdf'") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "page.pdf"));
}
