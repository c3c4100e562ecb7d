// --baseline and dgxhost compare as users run them (issue 14's acceptance): a published configuration gets its
// reference row and a verdict, a slowed run fails against a faster one, compare tells noise from a regression.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "dgx/json/json.hpp"
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

std::string read(const std::string& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A recorded run with its timing replaced: every time metric and sample of each row set by `time(i)` for sample i
// (the median is the median of what it sets). What `dgxhost compare` and --baseline judge, without a second run
// whose speed would depend on the machine's load.
template <typename Time> std::string with_times(const std::string& recorded, const std::string& out, Time time) {
  json::Value doc = json::parse(read(recorded));
  for (json::Value& row : doc.as_object().find("results")->as_array()) {
    json::Object& r = row.as_object();
    json::Array samples;
    std::vector<double> sorted;
    for (std::size_t i = 0; i < r.find("sample_times")->as_array().size(); ++i) {
      samples.emplace_back(time(i));
      sorted.push_back(time(i));
    }
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted.size() % 2 == 1 ? sorted[sorted.size() / 2]
                                                 : 0.5 * (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]);
    json::Object& metrics = r.find("metrics")->as_object();
    std::vector<std::string> times;
    for (const auto& member : metrics) {
      if (member.first.rfind("time.", 0) == 0 && member.first != "time.cv") {
        times.push_back(member.first);
      }
    }
    for (const std::string& name : times) {
      metrics.find(name)->as_object().set("value", median);
    }
    r.set("sample_times", std::move(samples));
  }
  std::ofstream(out) << json::write(doc);
  return out;
}

// Samples around `center`, spread by +-`spread` (a fraction), the same for the same `seed`: a deterministic stand-in
// for a machine's noise.
auto noisy(double center, double spread, unsigned seed) {
  return [=](std::size_t i) {
    unsigned x = seed * 2654435761U + static_cast<unsigned>(i) * 40503U;
    x ^= x >> 13;
    x *= 1274126177U;
    x ^= x >> 16;
    const double unit = static_cast<double>(x % 10001) / 10000.0;  // 0 .. 1
    return center * (1 + spread * (2 * unit - 1));
  };
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
  const std::string recorded = (dir.path() / "recorded.json").string();
  const std::vector<std::string> slow_spin{"--plugin", "spin", "--set", "spin.us=1100"};
  REQUIRE(dgxhost(slow_spin + std::vector<std::string>{"-o", recorded} + kQuick).exit_code == 0);
  // The faster run's file: the same configuration, timed as a 1000 us spin. The live run below spins 1100 us,
  // which no load can make it measure less than: 1000/1100 is below verdict.threshold (0.95) on any machine.
  const std::string fast = with_times(recorded, (dir.path() / "fast.json").string(), noisy(1000e-6, 0.01, 1));
  const ProcessResult slow = dgxhost(slow_spin + std::vector<std::string>{"--baseline", fast} + kQuick);
  CHECK(slow.exit_code == 5);
  CHECK(slow.out.find("reference") != std::string::npos);
  CHECK(slow.out.find("fail: spin 1100 us") != std::string::npos);
  const ProcessResult missing = dgxhost({"--plugin", "spin", "--baseline", (dir.path() / "none.json").string()});
  CHECK(missing.exit_code == 2);
}

TEST_CASE("dgxhost compare: the same workload twice is no significant difference, 10% slower is a regression") {
  TempDir dir;
  // One live run: the end-to-end path (a real results file); every judgement below is of recorded samples.
  const std::string a = (dir.path() / "a.json").string();
  REQUIRE(dgxhost(std::vector<std::string>{"--plugin", "spin", "--set", "spin.us=1000", "--set",
                                           "runner.min_samples=30", "-o", a} +
                  kQuick)
              .exit_code == 0);
  const ProcessResult itself = dgxhost({"compare", a, a});
  CHECK(itself.exit_code == 0);
  CHECK(itself.out.find("no significant difference") != std::string::npos);
  const auto recorded = [&](const char* name, auto time) { return with_times(a, (dir.path() / name).string(), time); };
  // The same workload twice: two draws of the same noise.
  const std::string one = recorded("one.json", noisy(1000e-6, 0.03, 1));
  const std::string two = recorded("two.json", noisy(1000e-6, 0.03, 2));
  const ProcessResult same = dgxhost({"compare", one, two});
  CHECK(same.exit_code == 0);
  CHECK(same.out.find("no significant difference") != std::string::npos);
  // 10% slower, noise alike: beyond the 5% threshold and far beyond the noise.
  const std::string slow = recorded("slow.json", noisy(1100e-6, 0.03, 3));
  const ProcessResult regressed = dgxhost({"compare", one, slow, "--format", "json"});
  CHECK(regressed.exit_code == 5);
  const json::Value doc = json::parse(regressed.out);
  CHECK(doc["results"][0]["info"]["verdict"].as_string() == "regression");
  const ProcessResult faster = dgxhost({"compare", slow, one, "--format", "json"});
  CHECK(faster.exit_code == 0);
  CHECK(json::parse(faster.out)["results"][0]["info"]["verdict"].as_string() == "improvement");
  // 10% slower within noise of +-40%: the threshold alone would call it a regression, the U test does not.
  const std::string wild_a = recorded("wild_a.json", noisy(1000e-6, 0.4, 4));
  const std::string wild_b = recorded("wild_b.json", noisy(1100e-6, 0.4, 5));
  const ProcessResult noise = dgxhost({"compare", wild_a, wild_b, "--format", "json"});
  CHECK(noise.exit_code == 0);
  CHECK(json::parse(noise.out)["results"][0]["info"]["verdict"].as_string() == "no significant difference");
  // And the live run against itself slowed past its own slowest sample: every sample of B above every sample of A,
  // a regression whatever the machine's load did to A's spread (a mere 10% on a noisy A could rightly be noise).
  const json::Value live = json::parse(read(a));
  double slowest = 0;
  for (const json::Value& t : live["results"][0]["sample_times"].as_array()) {
    slowest = std::max(slowest, t.as_number());
  }
  const std::string live_slow = recorded("live_slow.json", [&](std::size_t i) {
    return live["results"][0]["sample_times"][i].as_number() + 1.1 * slowest;
  });
  CHECK(dgxhost({"compare", a, live_slow}).exit_code == 5);
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
  // Per system of the catalog: the derived H100 copy, the all_gather references, and "no reference for" Blackwell.
  CHECK(r.out.find("derived from the H200's") != std::string::npos);
  CHECK(r.out.find("all_gather and reduce_scatter bus bandwidth") != std::string::npos);
  CHECK(r.out.find("no reference for a100-sxm-80gb, b200") != std::string::npos);
  CHECK(r.out.find("llama3.1-405b b200 fp8 128 GPUs") != std::string::npos);
  CHECK(r.out.find("llama3.1-405b h200-sxm fp8 512 GPUs") != std::string::npos);
  const ProcessResult one = dgxhost({"--plugin", "platform-check", "--set", "system=b200"});
  CHECK(one.exit_code == 4);
  CHECK(one.out.find("on b200: 1 reference row(s)") != std::string::npos);
  CHECK(one.out.find("on h100-sxm") == std::string::npos);
  CHECK(dgxhost({"--plugin", "platform-check", "--set", "system=tpu"}).exit_code == 2);
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
  CHECK(r.out.find("6. one Llama 3.1 8B layer") != std::string::npos);
  CHECK(r.out.find("7. end to end: one Llama 3.1 405B") != std::string::npos);
  CHECK(r.out.find("--baseline published") != std::string::npos);
}
