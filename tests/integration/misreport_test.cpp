// Acceptance: a plugin cannot report wrong numbers silently. The host refuses, naming the plugin, a run() that
// ignores request.iterations and a metric in a unit it does not know.
#include <doctest/doctest.h>

#include "dgx/json/json.hpp"
#include "dgxhost.hpp"

using namespace dgx;
using namespace dgx::testing;

namespace {

ProcessResult misreport(const std::vector<std::string>& args) {
  return dgxhost(std::vector<std::string>{"--plugin-dir", fixture_dir("misreporting")} + args + kQuick);
}

}  // namespace

TEST_CASE("a plugin that ignores iterations fails with a message naming it") {
  const ProcessResult r = misreport({"--plugin", "ignores-iterations", "--set", "runner.batch=10", "--format", "json"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("misreport:ignores-iterations: run() ignores request.iterations") != std::string::npos);
  const json::Value doc = json::parse(r.out);  // the report still says what happened
  CHECK_FALSE(doc["status"]["ok"].as_bool());
  CHECK(doc["status"]["error"].as_string().find("runner.batch=10") != std::string::npos);
  CHECK(doc["results"].as_array().empty());
}

TEST_CASE("with one iteration per sample there is nothing to ignore") {
  const ProcessResult r = misreport({"--plugin", "ignores-iterations", "--set", "misreport.us=100"});
  CHECK(r.exit_code == 0);
}

TEST_CASE("a metric with unit parsecs is refused, naming plugin, metric and unit, measured or projected") {
  for (const char* mode : {"measure", "project"}) {
    const ProcessResult r = misreport({"--plugin", "parsecs", "--mode", mode, "--format", "json"});
    CHECK_MESSAGE(r.exit_code == 1, mode);
    CHECK_MESSAGE(r.err.find("misreport:parsecs: metric 'distance' has unit 'parsecs', which dgxhost does not "
                             "accept (expected one of s, B, B/s,") != std::string::npos,
                  mode);
    const json::Value doc = json::parse(r.out);
    CHECK(doc["status"]["error"].as_string().find("unit 'parsecs'") != std::string::npos);
    for (const json::Value& row : doc["results"].as_array()) {  // a measured row keeps its timing, not the distance
      CHECK_FALSE(row["metrics"].as_object().contains("distance"));
    }
  }
}
