// --baseline and dgxhost compare as users run them (issue 14's acceptance): a published configuration gets its
// reference row and a verdict, a slowed run fails against a faster one, compare tells noise from a regression.
#include <doctest/doctest.h>

#include <filesystem>

#include "dgx/core/support/json.hpp"
#include "dgxhost.hpp"
#include "platform_check_file.hpp"
#include "temp_dir.hpp"

using namespace dgx;
using namespace dgx::testing;

namespace {

// Llama 3.1 70B on 64 H100 SXM in FP8, TP4 PP8 VP5, GBS 256: a Megatron-Bridge 26.02.01 published configuration,
// projected with the release that ran it (the default is the newest release, whose nearest published row is
// another).
std::vector<std::string> published_70b() {
  return {"--plugin",      "llama70b",      "--mode",        "project",       "--set",
          "gpus=64",       "--set",         "precision=fp8", "--set",         "parallel.tp=4",
          "--set",         "parallel.pp=8", "--set",         "parallel.cp=1", "--set",
          "parallel.vp=5", "--set",         "train.gbs=256", "--set",         "framework=nemo-26.02.01"};
}

const json::Value* row_with_mode(const json::Value& doc, const std::string& mode) {
  for (const json::Value& r : doc["results"].as_array()) {
    if (r["mode"].as_string() == mode) {
      return &r;
    }
  }
  return nullptr;
}

}  // namespace

TEST_CASE("--baseline published prints the reference row and a verdict for a published configuration") {
  const ProcessResult r =
      dgxhost(published_70b() + std::vector<std::string>{"--baseline", "published", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const json::Value doc = json::parse(r.out);
  const json::Value* reference = row_with_mode(doc, "reference");
  REQUIRE(reference != nullptr);
  CHECK((*reference)["metrics"]["tokens_per_s_per_gpu"]["value"].as_number() == 1639);
  CHECK((*reference)["info"]["source"].as_string().find("Megatron-Bridge") != std::string::npos);
  const json::Value* projected = row_with_mode(doc, "projected");
  REQUIRE(projected != nullptr);
  CHECK((*projected)["info"]["verdict"].as_string() == "pass");
  CHECK((*projected)["info"]["comparison"].as_string().find("model check") == 0);
  CHECK((*projected)["metrics"]["ratio_to_reference"]["value"].as_number() > 0.95);
  CHECK_FALSE((*projected)["config"].as_object().contains("verdict.threshold"));
}

TEST_CASE("verdict.threshold is a config key of runs with --baseline, a row below it fails with exit 5") {
  const ProcessResult r =
      dgxhost(published_70b() + std::vector<std::string>{"--baseline", "published", "--set", "verdict.threshold=1.5"});
  CHECK(r.exit_code == 5);
  CHECK(r.out.find("fail") != std::string::npos);
  CHECK(r.out.find("0 pass, 1 fail, 0 no reference") != std::string::npos);
  const ProcessResult without = dgxhost(published_70b() + std::vector<std::string>{"--set", "verdict.threshold=0.9"});
  CHECK(without.exit_code == 2);
}

TEST_CASE("a configuration nobody published has no reference and passes through") {
  const ProcessResult r =
      dgxhost({"--plugin", "llama70b", "--mode", "project", "--set", "precision=bf16", "--baseline", "published"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("no reference") != std::string::npos);
}

TEST_CASE("a deliberately slowed spin fails against the baseline file of a faster run, with exit 5") {
  TempDir dir;
  const std::string fast = (dir.path() / "fast.json").string();
  REQUIRE(
      dgxhost(std::vector<std::string>{"--plugin", "spin", "--set", "spin.us=1000", "-o", fast} + kQuick).exit_code ==
      0);
  const ProcessResult slow =
      dgxhost(std::vector<std::string>{"--plugin", "spin", "--set", "spin.us=1100", "--baseline", fast} + kQuick);
  CHECK(slow.exit_code == 5);
  CHECK(slow.out.find("reference") != std::string::npos);
  CHECK(slow.out.find("fail: spin 1100 us") != std::string::npos);
  const ProcessResult missing = dgxhost({"--plugin", "spin", "--baseline", (dir.path() / "none.json").string()});
  CHECK(missing.exit_code == 2);
}

TEST_CASE("dgxhost compare: the same workload twice is no significant difference, 10% slower is a regression") {
  TempDir dir;
  auto run = [&](const std::string& name, int us) {
    std::string file = (dir.path() / name).string();
    const std::vector<std::string> args{
        "--plugin", "spin", "--set", "spin.us=" + std::to_string(us), "--set", "runner.min_samples=9", "-o", file};
    REQUIRE(dgxhost(args + kQuick).exit_code == 0);
    return file;
  };
  const std::string a = run("a.json", 1000), b = run("b.json", 1000), slow = run("slow.json", 1100);
  // Two runs of the same spin differ only by scheduling noise, which a loaded 2-core CI machine makes a few per
  // cent: the same-run check allows 8 %, the regression below is 10 % against the default 5 %.
  const ProcessResult same = dgxhost({"compare", a, b, "--threshold", "0.08"});
  CHECK(same.exit_code == 0);
  CHECK(same.out.find("no significant difference") != std::string::npos);
  const ProcessResult regressed = dgxhost({"compare", a, slow, "--format", "json"});
  CHECK(regressed.exit_code == 5);
  const json::Value doc = json::parse(regressed.out);
  CHECK(doc["results"][0]["info"]["verdict"].as_string() == "regression");
  CHECK(dgxhost({"compare", a}).exit_code == 2);
}

TEST_CASE("platform-check without a GPU prints what it would run against which references, and exits 4") {
  const ProcessResult r = dgxhost({"--plugin", "platform-check"});
  if (r.out.find("mode plan") == std::string::npos) {  // a GPU is present: this pins down the path without one
    MESSAGE("SKIPPED: a GPU is present");
    return;
  }
  CHECK(r.exit_code == 4);
  CHECK(r.err.find("platform-check needs a GPU") != std::string::npos);
  for (const char* step : {"dgxhost --plugin gemm", "dgxhost --plugin hbm_copy", "dgxhost --plugin all_reduce",
                           "dgxhost --plugin all_gather", "dgxhost --plugin llm-layer"}) {
    CHECK_MESSAGE(r.out.find(step) != std::string::npos, step);
  }
  CHECK(r.out.find("maximum achievable BF16 matmul") != std::string::npos);
  CHECK(r.out.find("device-to-device copy, H200 SXM") != std::string::npos);
  const ProcessResult j = dgxhost({"--plugin", "platform-check", "--format", "json"});
  CHECK(j.exit_code == 4);
  const json::Value doc = json::parse(j.out);
  CHECK(doc["context"]["mode"].as_string() == "plan");
  for (const json::Value& row : doc["results"].as_array()) {
    CHECK(row["mode"].as_string() == "reference");
  }
}

TEST_CASE("a check's steps run through the ordinary path into one report with one verdict") {
  TempDir dir;
  write_platform_check(dir, {{.name = "short spin", .workload = "spin", .set = "spin.us=200"},
                             {.name = "longer spin", .workload = "spin", .set = "spin.us=400"}});
  const std::vector<std::string> args{"--config-dir",   dir.path().string(), "--plugin",
                                      "platform-check", "--format",          "json"};
  const ProcessResult r = dgxhost(args + kQuick);
  REQUIRE(r.exit_code == 0);
  const json::Value doc = json::parse(r.out);
  CHECK(doc["context"]["workload"].as_string() == "platform-check");
  CHECK(doc["context"]["platform_check"].as_array().size() == 2);
  REQUIRE(doc["results"].as_array().size() == 2);
  CHECK(doc["results"][1]["config"]["spin.us"].as_int() == 400);
  CHECK(doc["results"][0]["info"]["verdict"].as_string() == "no reference");
  // A --set of the command line reaches the steps whose workload has the key.
  const ProcessResult set = dgxhost(args + kQuick + std::vector<std::string>{"--set", "spin.us=100"});
  REQUIRE(set.exit_code == 0);
  CHECK(json::parse(set.out)["results"][1]["config"]["spin.us"].as_int() == 100);
}

TEST_CASE("platform-check is listed, and --describe lists its steps with their commands") {
  CHECK(dgxhost({"--list"}).out.find("platform-check  GEMM, HBM copy") != std::string::npos);
  const ProcessResult r = dgxhost({"--plugin", "platform-check", "--describe"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("1. GEMM BF16 and FP8") != std::string::npos);
  CHECK(r.out.find("5. one Llama 3.1 8B layer") != std::string::npos);
  CHECK(r.out.find("--baseline published") != std::string::npos);
}
