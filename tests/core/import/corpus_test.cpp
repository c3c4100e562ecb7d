// The real-log corpus (tests/data/import-corpus, issue 36): outputs other people published, byte for byte, each
// with the value a careful reader computes from it (manifest.json). What import reads must be that value within
// 1%; what the manifest calls unreadable must be refused with a message, not read as something.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "dgx/core/import/import.hpp"
#include "dgx/json/json.hpp"
#include "import_fixture.hpp"

using namespace dgx;
using dgx::testing::importer;

namespace {

std::string corpus_path(const std::string& relative) { return std::string(DGX_TEST_IMPORT_CORPUS) + "/" + relative; }

json::Array manifest() {
  std::ifstream in(corpus_path("manifest.json"));
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str()).as_array();
}

struct Wanted {
  std::string name;  // the rows' metric name
  double scale = 1;  // manifest value = ours x scale
};

// The manifest's metric names are a reader's ("ttft_median", in ms); the rows' are "ttft" in seconds, with
// ".p90" / ".mean" suffixes for the other statistics.
Wanted rows_name(std::string name, const std::string& unit) {
  Wanted w;
  for (const auto& [suffix, ours] : {std::pair<std::string, std::string>{"_median", ""},
                                     {"_mean", ".mean"},
                                     {"_p50", ""},
                                     {"_p90", ".p90"},
                                     {"_p99", ".p99"}}) {
    if (name.size() > suffix.size() && name.ends_with(suffix)) {
      name = name.substr(0, name.size() - suffix.size()) + ours;
      break;
    }
  }
  w.name = name;
  w.scale = unit == "ms" ? 1e3 : 1;
  return w;
}

const Metric* find_value(const LogReading& reading, const std::string& name) {
  for (const Metric& m : reading.values) {
    if (m.name == name) {
      return &m;
    }
  }
  return nullptr;
}

}  // namespace

TEST_CASE("the corpus holds at least 100 real outputs from at least 12 public sources, each with its provenance") {
  const json::Array entries = manifest();
  std::set<std::string> sources;
  for (const json::Value& e : entries) {
    const json::Value& source = e["source"];
    CHECK_MESSAGE(!source["repo"].as_string().empty(), e["file"].as_string());
    CHECK_MESSAGE(!source["url"].as_string().empty(), e["file"].as_string());
    sources.insert(source["repo"].as_string());
    std::ifstream file(corpus_path(e["file"].as_string()));
    CHECK_MESSAGE(file.good(), "missing " << e["file"].as_string());
  }
  CHECK(entries.size() >= 100);
  CHECK(sources.size() >= 12);
}

TEST_CASE("every readable file of the real-log corpus imports to within 1% of the value a careful reader computes") {
  int read = 0;
  int right = 0;
  for (const json::Value& e : manifest()) {
    if (!e["readable"].as_bool()) {
      continue;
    }
    ++read;
    const std::string file = e["file"].as_string();
    const json::Value& value = e["value"];
    const Wanted wanted = rows_name(value["metric"].as_string(), value["unit"].as_string());
    auto reading = importer().inspect_file(corpus_path(file));
    if (!reading) {
      FAIL_CHECK(file << ": refused: " << reading.error().message);
      continue;
    }
    const Metric* got = find_value(*reading, wanted.name);
    if (got == nullptr) {
      FAIL_CHECK(file << ": read as " << reading->tool << " without " << wanted.name);
      continue;
    }
    const double expected = value["value"].as_number();
    const double ours = got->value * wanted.scale;
    const bool close = std::abs(ours - expected) <= 0.01 * std::abs(expected);
    CHECK_MESSAGE(close, file << ": " << wanted.name << " " << ours << " against the manifest's " << expected << " ("
                              << value["how"].as_string() << "); " << reading->steady_state);
    right += close ? 1 : 0;
  }
  MESSAGE(right << " of " << read << " readable corpus files within 1%");
  CHECK(read >= 95);
}

TEST_CASE("an unreadable file of the corpus is refused with one message saying what is missing") {
  for (const json::Value& e : manifest()) {
    if (e["readable"].as_bool()) {
      continue;
    }
    const std::string file = e["file"].as_string();
    auto reading = importer().inspect_file(corpus_path(file));
    CHECK_MESSAGE(!reading, file << " was read although the manifest says: " << e["missing"].as_string());
    if (!reading) {
      CHECK(reading.error().code == ExitCode::usage);
      CHECK_MESSAGE(reading.error().message.find(file) != std::string::npos, reading.error().message);
    }
  }
}
