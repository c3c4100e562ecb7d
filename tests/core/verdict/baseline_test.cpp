#include <doctest/doctest.h>

#include "dgx/core/verdict/baseline.hpp"
#include "dgx/core/verdict/reference_store.hpp"

using namespace dgx;

namespace {

ResultRow spin_row(int us, double seconds, ResultMode mode = ResultMode::measured) {
  ResultRow row;
  row.workload = "spin";
  row.plugin = "spin";
  row.mode = mode;
  row.label = std::to_string(us) + " us";
  row.config.set("spin.us", us);
  row.add_metric({"time.median", seconds, "s", false, {}});
  row.add_metric({"samples", 10, "count", false, {}});
  return row;
}

Baseline baseline_of(const std::vector<ResultRow>& rows) {
  Report run;
  run.context.set("workload", "spin");
  run.rows = rows;
  return {"baseline run a.json", references_from_run(run, "a.json")};
}

}  // namespace

TEST_CASE("a row as fast as its baseline passes, the reference row comes first") {
  Report report;
  report.rows.push_back(spin_row(1000, 0.00101));
  const VerdictCounts n = apply_baseline(report, baseline_of({spin_row(1000, 0.001)}), 0.95);
  CHECK(n.pass == 1);
  REQUIRE(report.rows.size() == 2);
  CHECK(report.rows[0].mode == ResultMode::reference);
  CHECK(report.rows[0].find_metric("time.median")->value == 0.001);
  CHECK(report.rows[1].find_field("verdict")->value == "pass");
  CHECK(report.rows[1].find_metric("ratio_to_reference")->value == doctest::Approx(0.001 / 0.00101));
  CHECK(report.exit_code == 0);
  CHECK(report.notes.back().title == "Verdict");
}

TEST_CASE("a row slower than the threshold fails, names the nearest reference, and the run exits 5") {
  Report report;
  report.rows.push_back(spin_row(1100, 0.0011));
  const VerdictCounts n = apply_baseline(report, baseline_of({spin_row(1000, 0.001)}), 0.95);
  CHECK(n.fail == 1);
  CHECK(report.exit_code == 5);
  const ResultRow& row = report.rows.back();
  CHECK(row.find_field("verdict")->value == "fail");
  CHECK(row.find_field("reference")->value.find("differs in spin.us 1100 (reference 1000)") != std::string::npos);
  CHECK(report.notes.back().text.find("fail: spin 1100 us: 0.909") != std::string::npos);
}

TEST_CASE("rows without a reference say so and do not fail the run") {
  Report report;
  ResultRow other = spin_row(1000, 1);
  other.workload = "gemm";
  report.rows.push_back(other);
  const VerdictCounts n = apply_baseline(report, baseline_of({spin_row(1000, 0.001)}), 0.95);
  CHECK(n.none == 1);
  CHECK(report.rows.size() == 1);
  CHECK(report.rows[0].find_field("verdict")->value == "no reference");
  CHECK(report.exit_code == 0);
}

TEST_CASE("a row far from every reference's scale is not judged: no comparable reference, named, no failure") {
  const auto refs = parse_references(R"(
[[reference]]
workload = "train"
match = ["model"]
near = ["gpus", "gbs"]
keys = { gbs = "train.gbs" }
values = [{ column = "published", metric = "tokens_per_s_per_gpu", unit = "tokens/s", per_gpu = true }]

[[row]]
label = "64 GPUs"
model = "m"
gpus = 64
gbs = 512
published = 1000.0
)",
                                     "published.toml");
  REQUIRE(refs);
  const auto row = [](int gpus, int gbs, double tokens) {
    ResultRow r;
    r.workload = "train";
    r.mode = ResultMode::projected;
    r.config.set("model", "m");
    r.config.set("gpus", gpus);
    r.config.set("train.gbs", gbs);
    r.add_metric({"tokens_per_s_per_gpu", tokens, "tokens/s", false, {}});
    return r;
  };
  Report report;
  report.rows = {row(8192, 512, 500), row(64, 4096, 1000), row(128, 1024, 990)};
  const VerdictCounts n = apply_baseline(report, {"published references", *refs}, 0.95);
  CHECK(n.fail == 0);  // 8192 GPUs at half the 64-GPU per-GPU rate is not a failure: nothing comparable
  CHECK(n.pass == 1);
  CHECK(report.exit_code == 0);
  int incomparable = 0;
  for (const ResultRow& r : report.rows) {
    if (const Field* v = r.find_field("verdict"); v != nullptr && v->value == "no comparable reference") {
      ++incomparable;
    }
  }
  CHECK(incomparable == 2);  // the GPU count (128x) and the global batch (8x) beyond 4x
  const std::string& note = report.notes.back().text;
  CAPTURE(note);
  CHECK(note.find("not judged: ") != std::string::npos);
  CHECK(note.find("gpus 8192 is 128x the reference's 64") != std::string::npos);
  CHECK(note.find("train.gbs 4096 is 8.00x the reference's 512") != std::string::npos);
  // A pass against a reference that differs names the differences.
  CHECK(note.find("pass: ") != std::string::npos);
  CHECK(note.find("differs in gpus 128 (reference 64), train.gbs 1024 (reference 512)") != std::string::npos);
}

TEST_CASE("a projected row against a measurement is labelled a model check") {
  Report report;
  report.rows.push_back(spin_row(1000, 0.001, ResultMode::projected));
  apply_baseline(report, baseline_of({spin_row(1000, 0.001)}), 0.95);
  CHECK(report.rows.back().find_field("comparison")->value.find("model check") == 0);
  CHECK(report.notes.back().text.find("model check") != std::string::npos);
}

TEST_CASE("a run that already failed keeps its exit code") {
  Report report;
  report.exit_code = 1;
  report.error = "plugin failed";
  report.rows.push_back(spin_row(1000, 0.01));
  apply_baseline(report, baseline_of({spin_row(1000, 0.001)}), 0.95);
  CHECK(report.exit_code == 1);
}

TEST_CASE("--baseline reads published references or a results file, and says what is wrong with either") {
  CHECK(load_baseline("published").has_value());
  auto missing = load_baseline("/nonexistent.json");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == ExitCode::usage);
  CHECK(missing.error().message.find("'published' or a results file") != std::string::npos);
}
