// Acceptance: measuring through the executable, with JSON on stdout and the schema users' scripts rely on.
#include <doctest/doctest.h>

#include <chrono>

#include "dgx/json/json.hpp"
#include "dgxhost.hpp"
#include "temp_dir.hpp"

using namespace dgx;
using namespace dgx::testing;

TEST_CASE("spin.us=2000 measures a 2 ms median, with the schema id and the context block") {
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult r = dgxhost({"--plugin", "spin", "--set", "spin.us=2000", "--format", "json"});
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(r.exit_code == 0);
  const json::Value doc = json::parse(r.out);  // stdout holds only the JSON document
  CHECK(doc["schema"].as_string() == "dgx.results/1");
  const json::Value& context = doc["context"];
  CHECK(context["dgxhost"]["version"].is_string());
  CHECK(context["dgxhost"]["git_revision"].is_string());
  CHECK(context["host"]["cpu_count"].as_int() >= 1);
  CHECK(context["gpus"]["count"].as_int() == 0);
  CHECK(context["gpus"]["status"].as_string().find("none") == 0);
  CHECK(context["argv"].as_array().size() == 7);
  CHECK(context["config"]["spin.us"].as_int() == 2000);
  CHECK(context["config_sources"]["spin.us"].as_string() == "--set spin.us=2000");
  CHECK(context["mode"].as_string() == "measure");
  REQUIRE(doc["results"].as_array().size() == 1);
  const json::Value& row = doc["results"][0];
  CHECK(row["workload"].as_string() == "spin");
  CHECK(row["plugin"].as_string() == "spin");
  CHECK(row["mode"].as_string() == "measured");
  CHECK(row["config"]["spin.us"].as_int() == 2000);
  const json::Value& metrics = row["metrics"];
  // However loaded the machine: a 2 ms busy-wait never measures less, and the samples fit in the process's life.
  CHECK(metrics["time.min"]["value"].as_number() >= 0.002);
  CHECK(metrics["time.median"]["value"].as_number() >= metrics["time.min"]["value"].as_number());
  double sampled = 0;
  for (const json::Value& t : row["sample_times"].as_array()) {
    sampled += t.as_number();
  }
  CHECK(sampled <= wall);
  CHECK(metrics["time.median"]["unit"].as_string() == "s");
  for (const char* name : {"time.mean", "time.min", "time.max", "time.stdev", "time.cv", "samples"}) {
    CHECK(metrics.as_object().contains(name));
  }
  CHECK(row["info"]["timing"].as_string().find("steady_clock") != std::string::npos);
}

TEST_CASE("the terminal table shows the same metrics and labels the row as measured") {
  const ProcessResult r = dgxhost(std::vector<std::string>{"--plugin", "spin", "--set", "spin.us=500"} + kQuick);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("time.median [us]") != std::string::npos);
  CHECK(r.out.find("measured") != std::string::npos);
  CHECK(r.out.find("timing: host steady_clock") != std::string::npos);
}

TEST_CASE("--output writes the results file in the format of its extension") {
  TempDir dir;
  const auto file = (dir.path() / "results.json").string();
  const auto csv = (dir.path() / "results.csv").string();
  ProcessResult r = dgxhost(std::vector<std::string>{"--plugin", "spin", "--set", "spin.us=100", "-o", file} + kQuick);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("time.median") != std::string::npos);  // the table still goes to stdout
  std::ifstream in(file);
  const std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(json::parse(content)["schema"].as_string() == "dgx.results/1");
  r = dgxhost(std::vector<std::string>{"--plugin", "spin", "--set", "spin.us=100", "-o", csv, "-q"} + kQuick);
  REQUIRE(r.exit_code == 0);
  std::ifstream csv_in(csv);
  std::string header;
  std::getline(csv_in, header);
  CHECK(header.find("workload,plugin,mode") == 0);
}

TEST_CASE("a C plugin projects, and the row says projected") {
  const ProcessResult r = dgxhost(
      {"--plugin-dir", fixture_dir("good"), "--plugin", "cplain:cplain", "--mode", "project", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const json::Value doc = json::parse(r.out);
  CHECK(doc["results"][0]["mode"].as_string() == "projected");
  CHECK(doc["results"][0]["info"]["source"].as_string() == "1 ns per loop (assumed)");
  CHECK(doc["context"]["mode"].as_string() == "project");
}

TEST_CASE("a workload without the requested mode is a usage error") {
  const ProcessResult r = dgxhost({"--plugin", "spin", "--mode", "project"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("spin:spin has no project mode (it supports: measure)") != std::string::npos);
}

TEST_CASE("a failed correctness check exits 5 and still reports the measured row") {
  const ProcessResult r = dgxhost(std::vector<std::string>{"--plugin-dir", fixture_dir("good"), "--plugin", "throw",
                                                           "--set", "thrower.where=check", "--format", "json"} +
                                  kQuick);
  CHECK(r.exit_code == 5);
  const json::Value doc = json::parse(r.out);
  CHECK(doc["results"].as_array().size() == 1);
  CHECK_FALSE(doc["status"]["ok"].as_bool());
  CHECK(doc["status"]["error"].as_string().find("result mismatch") != std::string::npos);
}
