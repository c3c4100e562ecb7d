// The real-log corpus (tests/data/import-corpus, issue 36): outputs other people published, byte for byte, each
// with the value a careful reader computes from it (manifest.json). What import reads must be that value within
// 1%; what the manifest calls unreadable must be refused with a message, not read as something.
#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "dgx/core/import/import.hpp"
#include "dgx/core/support/json.hpp"

using namespace dgx;

namespace {

std::string corpus_path(const std::string& relative) { return std::string(DGX_TEST_IMPORT_CORPUS) + "/" + relative; }

json::Array manifest() {
  std::ifstream in(corpus_path("manifest.json"));
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str()).as_array();
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

TEST_CASE("an unreadable file of the corpus is refused with one message saying what is missing") {
  for (const json::Value& e : manifest()) {
    if (e["readable"].as_bool()) {
      continue;
    }
    const std::string file = e["file"].as_string();
    auto reading = inspect_file(corpus_path(file));
    CHECK_MESSAGE(!reading, file << " was read although the manifest says: " << e["missing"].as_string());
    if (!reading) {
      CHECK(reading.error().code == ExitCode::usage);
      CHECK_MESSAGE(reading.error().message.find(file) != std::string::npos, reading.error().message);
    }
  }
}
