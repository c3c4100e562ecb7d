#include <doctest/doctest.h>

#include <sys/stat.h>

#include <chrono>
#include <cmath>
#include <fstream>

#include "dgx/core/report/reporters.hpp"
#include "dgx/core/results/document_reader.hpp"
#include "sanitized.hpp"
#include "temp_dir.hpp"

using namespace dgx;

namespace {

// A one-row results document, as JSON text, with `change` applied to its row.
template <typename Change> std::string one_row_document(Change change) {
  Report report;
  ResultRow row;
  row.workload = "spin";
  row.plugin = "spin";
  row.add_metric({"time.median", 0.002, "s", false, {}});
  row.add_field({"timing", "host clock", false});
  row.sample_times = {0.002, 0.0021};
  report.rows.push_back(row);
  json::Value doc = json::parse(render_json(report));
  change(doc.as_object().find("results")->as_array()[0].as_object());
  return json::write(doc, 0);
}

std::string refusal(const std::string& text) {
  auto read = parse_results(text, "b.json");
  REQUIRE_FALSE(read);
  CHECK(read.error().code == ExitCode::usage);
  return read.error().message;
}

}  // namespace

TEST_CASE("a results document reads back into the rows, metrics, fields, samples and notes it was written from") {
  Report report;
  report.context.set("workload", "spin");
  ResultRow row;
  row.workload = "spin";
  row.plugin = "spin";
  row.label = "2000 us";
  row.config.set("spin.us", 2000);
  row.add_metric({"time.median", 0.002, "s", false, {}});
  row.add_metric({"nan", NAN, "1", false, {}});
  row.add_field({"timing", "host clock", true});
  row.sample_times = {0.002, 0.0021};
  report.rows.push_back(row);
  report.notes.push_back({true, "Assumptions", "none"});
  const auto back = parse_results(render_json(report), "mem");
  REQUIRE(back);
  REQUIRE(back->rows.size() == 1);
  const ResultRow& r = back->rows[0];
  CHECK(r.label == "2000 us");
  CHECK(r.config.at("spin.us").as_int() == 2000);
  CHECK(r.find_metric("time.median")->value == 0.002);
  CHECK(std::isnan(r.find_metric("nan")->value));
  CHECK(r.find_field("timing")->value == "host clock");
  CHECK(r.sample_times.size() == 2);
  CHECK(back->notes.at(0).before);
}

TEST_CASE("another schema or no JSON at all is a usage error naming the file") {
  auto wrong = parse_results(R"({"schema": "other/1", "results": []})", "x.json");
  REQUIRE_FALSE(wrong);
  CHECK(wrong.error().code == ExitCode::usage);
  CHECK(wrong.error().message.find("x.json") == 0);
  CHECK_FALSE(parse_results("not json", "y.json"));
  CHECK_FALSE(read_results_file("/nonexistent/z.json"));
}

TEST_CASE("a member of the wrong type is refused naming the file, its JSON path and what was expected") {
  CHECK(refusal("[1, 2]") == "b.json: $: expected an object, found an array");
  CHECK(refusal(R"({"schema": "dgx.results/1", "results": "x"})") ==
        R"(b.json: $.results: expected an array, found a string ("x"))");
  CHECK(refusal(one_row_document([](json::Object& row) { row.set("workload", 5); })) ==
        "b.json: $.results[0].workload: expected a string, found an integer (5)");
  CHECK(refusal(one_row_document([](json::Object& row) {
          row.find("metrics")->as_object().find("time.median")->as_object().set("value", "fast");
        })) ==
        R"(b.json: $.results[0].metrics["time.median"].value: expected a number or null, found a string ("fast"))");
  CHECK(refusal(one_row_document([](json::Object& row) {
          row.set("sample_times", json::Array{"a", nullptr, json::Object()});
        })) == R"(b.json: $.results[0].sample_times[0]: expected a number, found a string ("a"))");
  CHECK(refusal(one_row_document([](json::Object& row) {
          row.set("sample_times", json::Array{1.0, nullptr});
        })) == "b.json: $.results[0].sample_times[1]: expected a number, found null");
  CHECK(refusal(one_row_document([](json::Object& row) {
          row.set("info", json::Object());
          row.find("info")->as_object().set("k", 1);
        })) == "b.json: $.results[0].info.k: expected a string, found an integer (1)");
  CHECK(refusal(one_row_document([](json::Object& row) {
          row.set("mode", "guessed");
        })).find(R"($.results[0].mode: expected "measured", "projected" or "reference", found a string ("guessed"))") !=
        std::string::npos);
  CHECK(refusal(one_row_document([](json::Object& row) { row.set("config", json::Array()); })) ==
        "b.json: $.results[0].config: expected an object, found an empty array");
}

TEST_CASE("a results document nested 100,000 deep is refused like a config, not a crash") {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  CHECK(refusal(deep) ==
        "b.json: line 1: arrays or objects nest more than 32 deep; dgxhost refuses documents nested this deeply");
}

TEST_CASE("only a regular file is read as results, at once: a FIFO, a directory or /dev/zero is refused") {
  testing::TempDir dir;
  const auto fifo = dir.path() / "f.json";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  for (const std::string& path : {fifo.string(), dir.path().string(), std::string("/dev/zero")}) {
    const auto start = std::chrono::steady_clock::now();
    auto read = read_results_file(path);
    REQUIRE_FALSE(read);
    CHECK(read.error().code == ExitCode::usage);
    CHECK_MESSAGE(read.error().message.find("results file " + path + ": is ") == 0, read.error().message);
    CHECK(read.error().message.find(", not a regular file") != std::string::npos);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(60));  // a FIFO would block for ever
  }
}

TEST_CASE("a results file beyond the size limit is refused with the limit, a 300 MB one is read") {
  testing::TempDir dir;
  const auto big = dir.path() / "big.json";
  {
    std::ofstream out(big);
    out << R"({"schema": "dgx.results/1", "results": [])";
    out.seekp(static_cast<std::streamoff>(kMaxResultsFileBytes));
    out << "}";  // a sparse file: one byte past the limit costs no disk
  }
  auto refused = read_results_file(big.string());
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message == "results file " + big.string() + ": is " + std::to_string(kMaxResultsFileBytes + 1) +
                                       " bytes; dgxhost reads at most " + std::to_string(kMaxResultsFileBytes) +
                                       " bytes");
  if (testing::kSanitized) {
    return;  // 300 MB through ASan's allocator checks memory the rest of the suite checks already
  }
  std::string samples = "0.000100012";
  for (int i = 1; i < 100000; ++i) {
    samples += ", 0.000100012";
  }
  const std::string row = R"({"workload": "spin", "mode": "measured", "sample_times": [)" + samples + "]}";
  {
    std::ofstream out(big, std::ios::trunc);
    out << R"({"schema": "dgx.results/1", "results": [)" << row;
    for (int i = 1; i < 250; ++i) {
      out << ", " << row;
    }
    out << "]}";
  }
  REQUIRE(std::filesystem::file_size(big) > 300'000'000);
  auto read = read_results_file(big.string());
  REQUIRE_MESSAGE(read, read.error().message);
  CHECK(read->rows.size() == 250);
  CHECK(read->rows[249].sample_times.size() == 100000);
}
