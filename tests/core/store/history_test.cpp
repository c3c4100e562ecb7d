// dgxhost history's report (core/src/store/history.cpp) on synthetic series: the verdict of each detection
// method, the direction of "worse" per metric, what changed in the context at a change point, and too short a
// series. (Series merged across hosts come so from the store: store_test.cpp.)
#include <doctest/doctest.h>

#include <cmath>

#include "dgx/core/store/history.hpp"
#include "dgx/core/support/utc_time.hpp"

using namespace dgx;

namespace {

// Deterministic noise of about `cv` around 1 (a fixed linear congruential sequence).
std::vector<double> noisy(std::size_t n, double cv, std::uint32_t seed = 7) {
  std::vector<double> out;
  for (std::size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    out.push_back(1 + cv * (static_cast<double>(seed >> 8) / double(1 << 24) - 0.5) * 3.4);
  }
  return out;
}

// Nightly points of `metric`: `level` times noise, `step` applied from index `at` on, where NCCL also changed.
Series series(const std::string& metric, const std::string& unit, std::size_t n, std::size_t at, double step,
              double level = 100) {
  Series s;
  s.key.plugin = "comm";
  s.key.workload = "all_reduce";
  s.key.label = "1073741824 B";
  s.key.mode = "measured";
  s.key.metric = metric;
  s.key.unit = unit;
  s.key.hosts = "node1";
  s.key.config = R"({"comm.bytes": 1073741824})";
  const std::vector<double> noise = noisy(n, 0.01);
  for (std::size_t i = 0; i < n; ++i) {
    SeriesPoint p;
    p.run_id = static_cast<std::int64_t>(i + 1);
    p.value = level * noise[i] * (i >= at ? 1 + step : 1.0);
    p.run.time = 1793491200 + static_cast<std::int64_t>(i) * 86400;
    p.run.nccl = i >= at ? "2.23.4" : "2.21.5";
    p.run.driver = "560.35";
    p.run.hosts = "node1";
    s.points.push_back(p);
  }
  return s;
}

HistoryOptions detect(DetectMethod method) {
  HistoryOptions o;
  o.detect.method = method;
  return o;
}

const Field& field(const ResultRow& row, const char* key) {
  const Field* f = row.find_field(key);
  REQUIRE_MESSAGE(f != nullptr, key);
  return *f;
}

}  // namespace

TEST_CASE("a bandwidth that fell 10% in the newest nights is a regression: when, how much, p, and what changed") {
  const Report r = history_report({series("busbw", "GB/s", 30, 26, -0.10)}, detect(DetectMethod::edivisive));
  REQUIRE(r.rows.size() == 1);
  const ResultRow& row = r.rows.front();
  CHECK(field(row, "verdict").value == "regression");
  CHECK(field(row, "change").value.find("2026-11-27T00:00:00Z") == 0);  // the first night of the new level
  CHECK(field(row, "changed").value == "nccl 2.21.5 -> 2.23.4");
  CHECK(row.find_metric("change")->value == doctest::Approx(-10).epsilon(0.2));
  CHECK(row.find_metric("p_value")->value < 0.05);
  CHECK(row.find_metric("points")->value == 30);
  CHECK(r.exit_code == to_int(ExitCode::check_failed));
  CHECK(r.error.find("1 series regressed") != std::string::npos);
}

TEST_CASE("the same fall of a time is an improvement, and a steady series is no change: exit 0") {
  const Report faster =
      history_report({series("time.median", "s", 30, 26, -0.10, 1e-3)}, detect(DetectMethod::edivisive));
  CHECK(field(faster.rows.front(), "verdict").value == "improvement");
  CHECK(faster.exit_code == 0);
  const Report steady = history_report({series("busbw", "GB/s", 40, 40, 0)}, detect(DetectMethod::edivisive));
  CHECK(field(steady.rows.front(), "verdict").value == "no change");
  CHECK(steady.exit_code == 0);
}

TEST_CASE("a regression long past is reported but no longer fails the gate, a small one is within the threshold") {
  const Report old = history_report({series("busbw", "GB/s", 40, 12, -0.10)}, detect(DetectMethod::edivisive));
  CHECK(field(old.rows.front(), "verdict").value == "no new change");
  CHECK(field(old.rows.front(), "change").value.find("2026-11-13") == 0);
  CHECK(old.exit_code == 0);
}

TEST_CASE("too short a series is not enough history: its own verdict, never a pass, for both methods") {
  for (const DetectMethod m : {DetectMethod::edivisive, DetectMethod::window}) {
    const Report r = history_report({series("busbw", "GB/s", 4, 4, 0)}, detect(m));
    CHECK(field(r.rows.front(), "verdict").value == "not enough history");
    CHECK(field(r.rows.front(), "why").value.find("4 point(s)") == 0);
    CHECK(r.exit_code == 0);
    CHECK(r.notes.front().text.find("not a pass") != std::string::npos);
  }
}

TEST_CASE("the window test: the newest three nights against the ten before them") {
  const Report fell = history_report({series("busbw", "GB/s", 20, 17, -0.10)}, detect(DetectMethod::window));
  CHECK(field(fell.rows.front(), "verdict").value == "regression");
  CHECK(field(fell.rows.front(), "change").value.find("newest 3 points against the 10 before them") == 0);
  CHECK(fell.exit_code == to_int(ExitCode::check_failed));
  const Report noise = history_report({series("busbw", "GB/s", 20, 20, 0)}, detect(DetectMethod::window));
  CHECK(field(noise.rows.front(), "verdict").value == "no significant change");
}

TEST_CASE("point rows carry each run's context and mark where a change starts") {
  HistoryOptions o = detect(DetectMethod::edivisive);
  o.point_rows = true;
  const Report r = history_report({series("busbw", "GB/s", 30, 26, -0.10)}, o);
  REQUIRE(r.rows.size() == 31);
  const ResultRow& first_after = r.rows[1 + 26];
  CHECK(first_after.table == "history points busbw");
  CHECK(first_after.config_text("time") == "2026-11-27T00:00:00Z");
  CHECK(field(first_after, "nccl").value == "2.23.4");
  CHECK(field(first_after, "change_point").value == "yes");
  CHECK(r.rows[1 + 25].find_field("change_point") == nullptr);
}

TEST_CASE("a series judges by the direction its workload declared: a fall of a declared higher-is-better ratio is a "
          "regression") {
  Series efficiency = series("efficiency", "1", 30, 26, -0.10, 0.8);
  const Report undeclared = history_report({efficiency}, detect(DetectMethod::edivisive));
  CHECK(field(undeclared.rows.front(), "verdict").value == "shift");  // the unit "1" alone says nothing
  CHECK(undeclared.exit_code == 0);
  efficiency.key.better = "higher";
  const Report declared = history_report({efficiency}, detect(DetectMethod::edivisive));
  CHECK(field(declared.rows.front(), "verdict").value == "regression");
  CHECK(declared.exit_code == to_int(ExitCode::check_failed));
  Series time = series("time.median", "s", 30, 26, -0.10, 1e-3);
  time.key.better = "none";  // declared not judged: a fall is a shift, whatever its unit
  CHECK(field(history_report({time}, detect(DetectMethod::edivisive)).rows.front(), "verdict").value == "shift");
}
