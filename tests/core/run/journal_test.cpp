#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "dgx/core/run/journal.hpp"
#include "temp_dir.hpp"

using namespace dgx;

TEST_CASE("a row survives the journal unchanged, hidden columns, labels and non-finite values included") {
  ResultRow row;
  row.workload = "w";
  row.plugin = "p";
  row.table = "t";
  row.label = "1K";
  row.config.set("size", 1024);
  row.hidden_config = {"size"};
  row.metrics = {{"time.median", 1.5e-6, "s", false, "median"}, {"odd", std::nan(""), "x", true, {}}};
  row.fields = {{"timing", "wall clock", true}, {"note", "ok", false}};
  row.sample_times = {1e-6, 2e-6};
  const json::Value written = json::parse(json::write(row_to_journal(row), 0));
  const ResultRow back = row_from_journal(json::Cursor(written));
  CHECK(json::write(back.to_json()) == json::write(row.to_json()));  // NaN != NaN: compare the text
  CHECK(back.hidden_config == row.hidden_config);
  CHECK(back.metrics[0].label == "median");
  CHECK(back.metrics[1].hidden);
  CHECK(std::isnan(back.metrics[1].value));
  CHECK(back.fields[0].hidden);
  CHECK_FALSE(back.fields[1].hidden);
}

TEST_CASE("a journal is appended case by case and read back, it is never created twice") {
  testing::TempDir dir;
  json::Object header;
  header.set("workload", "p:w");
  header.set("config", json::Object());
  auto journal = Journal::create(dir.path() / "run", header);
  REQUIRE(journal);
  ResultRow row;
  row.label = "a";
  CHECK_FALSE(journal->append(0, row));
  row.label = "c";
  CHECK_FALSE(journal->append(2, row));
  auto again = Journal::create(dir.path() / "run", header);
  REQUIRE_FALSE(again);
  CHECK(again.error().message.find("--resume") != std::string::npos);
  auto resumed = Journal::resume(dir.path() / "run");
  REQUIRE(resumed);
  CHECK(resumed->finished().size() == 2);
  CHECK(resumed->finished().at(2).label == "c");
  CHECK(resume_mismatch(resumed->header(), header).empty());
}

TEST_CASE("a resumed run must match the journal's workload and every config key") {
  json::Object a;
  a.set("workload", "p:w");
  json::Object config;
  config.set("k", 1);
  a.set("config", config);
  json::Object b = a;
  CHECK(resume_mismatch(a, b).empty());
  config.set("k", 2);
  b.set("config", config);
  CHECK(resume_mismatch(a, b) == "config key k: the journal's is 1, this run's 2");
  b = a;
  b.set("workload", "p:x");
  CHECK(resume_mismatch(a, b).find("workload") == 0);
}

TEST_CASE("a journal line nested 30,000 deep or with a mistyped row is refused naming the file and line") {
  testing::TempDir dir;
  json::Object header;
  header.set("workload", "p:w");
  header.set("config", json::Object());
  {
    auto journal = Journal::create(dir.path() / "run", header);
    REQUIRE(journal);
    CHECK_FALSE(journal->append(0, ResultRow{}));
  }
  const auto file = dir.path() / "run" / kJournalFile;
  const std::string good = [&] {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }();
  const auto resume_with = [&](const std::string& line) {
    std::ofstream(file, std::ios::trunc) << good << line << "\n";
    auto resumed = Journal::resume(dir.path() / "run");
    REQUIRE_FALSE(resumed);
    CHECK(resumed.error().code == ExitCode::usage);
    return resumed.error().message;
  };
  const std::string prefix =
      "--resume " + (dir.path() / "run").string() + ": " + file.string() + ":3: not a journal entry: ";
  CHECK(resume_with(R"({"case": 1, "row": )" + std::string(30000, '[') + std::string(30000, ']') + "}") ==
        prefix + "line 1: arrays or objects nest more than 32 deep; dgxhost refuses documents nested this deeply");
  json::Value entry = json::parse(good.substr(good.find('\n') + 1));
  entry.as_object().find("row")->as_object().set("sample_times", json::Array{"a", nullptr, json::Object()});
  CHECK(resume_with(json::write(entry, 0)) ==
        prefix + R"($.row.sample_times[0]: expected a number, found a string ("a"))");
  CHECK(resume_with(R"({"case": "one", "row": {}})") ==
        prefix + R"($.case: expected an integer, found a string ("one"))");
  CHECK(resume_with(R"({"case": -1, "row": {}})") ==
        prefix + "$.case: expected a case index in 0..4294967295, found an integer (-1)");
}
