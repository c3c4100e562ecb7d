#include <doctest/doctest.h>

#include <algorithm>

#include "dgx/core/verdict/projection_check.hpp"

using namespace dgx;

namespace {

// An imported training run: what a NeMo log gives (per-GPU throughput, step time, TFLOP/s).
ResultRow imported_run(double tokens_per_s_per_gpu, double step_time) {
  ResultRow row;
  row.workload = "llm-pretrain";
  row.plugin = "import";
  row.mode = ResultMode::measured;
  row.table = "imported nemo";
  row.label = "train.log";
  row.config.set("model", "llama3.1-70b");
  row.config.set("system", "h100-sxm");
  row.config.set("gpus", 64);
  row.config.set("precision", "fp8");
  row.config.set("parallel.tp", 4);
  row.add_metric({"tokens_per_s_per_gpu", tokens_per_s_per_gpu, "tokens/s", false, {}});
  row.add_metric({"step_time", step_time, "s", false, {}});
  row.add_field({"source", "imported: nemo 25.09", false});
  return row;
}

// Its projection: 1660 tokens/s per GPU at 9.87 s a step within ±7.3%, and where the step goes.
ResultRow projection(double band_percent = 7.3) {
  ResultRow row;
  row.workload = "llm-pretrain";
  row.plugin = "llm-pretrain";
  row.mode = ResultMode::projected;
  row.config.set("model", "llama3.1-70b");
  row.config.set("system", "h100-sxm");
  row.config.set("gpus", 64);
  row.config.set("precision", "fp8");
  row.config.set("parallel.tp", 4);
  row.config.set("parallel.ep", 1);
  row.config.set("framework", "nemo-26.02.01");
  row.add_metric({"step_time", 9.87, "s", false, {}});
  row.add_metric({"tokens_per_s_per_gpu", 1660, "tokens/s", false, {}});
  row.add_metric({"accuracy_band", band_percent, "%", false, {}});
  row.add_metric({"breakdown.compute", 8.40, "s", true, {}});
  row.add_metric({"breakdown.tp", 0.81, "s", true, {}});
  row.add_metric({"breakdown.dp", 0.01, "s", true, {}});
  row.add_metric({"breakdown.stragglers", 0.50, "s", true, {}});
  row.add_metric({"breakdown.bubble", 0.15, "s", true, {}});
  row.add_field({"configuration", "64 x h100-sxm, fp8, TP4 PP4 CP2 VP5 MBS1", false});
  return row;
}

bool any_line_has(const std::vector<std::string>& lines, const std::string& part) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(part) != std::string::npos; });
}

}  // namespace

TEST_CASE("a run below the projection by more than its band is slower than its configuration should run") {
  const auto j = judge_against_projection(imported_run(1463, 11.2), projection());
  REQUIRE(j);
  CHECK(j->metric == "tokens_per_s_per_gpu");  // per-GPU throughput first, before the step time
  CHECK(j->ratio == doctest::Approx(1463.0 / 1660));
  CHECK(j->band == doctest::Approx(0.073));
  CHECK(j->outcome == ProjectionOutcome::slower);
  CHECK(j->text() == "11.9% below the projection (band \u00b17.3%): slower than this configuration should run");
}

TEST_CASE("inside the band a run is as projected, above it faster, whichever side of 1 it is") {
  const auto within = judge_against_projection(imported_run(1600, 10.2), projection());
  REQUIRE(within);
  CHECK(within->outcome == ProjectionOutcome::as_projected);
  CHECK(within->text().find("3.6% below the projection, inside its band \u00b17.3%") == 0);
  const auto faster = judge_against_projection(imported_run(1900, 8.6), projection());
  REQUIRE(faster);
  CHECK(faster->outcome == ProjectionOutcome::faster);
  CHECK(faster->text().find("14.5% above the projection") == 0);
  // A narrow band turns the same 3.6% into a slow run.
  CHECK(judge_against_projection(imported_run(1600, 10.2), projection(2.0))->outcome == ProjectionOutcome::slower);
}

TEST_CASE("lower-is-better metrics are judged the right way round and units convert") {
  ResultRow run = imported_run(0, 0);
  run.metrics.clear();
  run.add_metric({"step_time", 11200, "ms", false, {}});  // a Megatron-LM log times iterations in ms
  const auto j = judge_against_projection(run, projection());
  REQUIRE(j);
  CHECK(j->metric == "step_time");
  CHECK(j->projected == doctest::Approx(9870));  // in the run's unit
  CHECK(j->ratio == doctest::Approx(9.87 / 11.2));
  CHECK(j->outcome == ProjectionOutcome::slower);
}

TEST_CASE("no judgement without a band or a shared metric") {
  ResultRow no_band = projection();
  no_band.metrics.erase(std::remove_if(no_band.metrics.begin(), no_band.metrics.end(),
                                       [](const Metric& m) { return m.name == "accuracy_band"; }),
                        no_band.metrics.end());
  CHECK_FALSE(judge_against_projection(imported_run(1463, 11.2), no_band));
  ResultRow other = imported_run(0, 0);
  other.metrics.clear();
  other.add_metric({"busbw", 400, "GB/s", false, {}});
  CHECK_FALSE(judge_against_projection(other, projection()));
}

TEST_CASE("where the time goes: the projection's parts largest first, what the run printed, the gap") {
  const std::vector<std::string> lines = where_time_goes(imported_run(1463, 11.2), projection());
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].find("the projected step (9.870 s): GEMMs, attention and elementwise kernels 8.400 s (85%), "
                      "tensor-parallel communication 810.0 ms (8%)") == 0);
  CHECK(lines[1].find("step_time 11.20 s (projected 9.870 s)") != std::string::npos);
  CHECK(lines[2].find("1.330 s (13.5%) more per step than projected") != std::string::npos);
  CHECK(where_time_goes(imported_run(1463, 11.2), ResultRow{}).empty());
}

TEST_CASE("the settling measurements follow the projected parts and always end with the platform check") {
  const std::vector<std::string> commands = settling_measurements(imported_run(1463, 11.2), projection());
  REQUIRE(commands.size() >= 4);
  CHECK(commands[0].find("dgxhost --plugin gemm --set 'gemm.precisions=[\"fp8\"]'") == 0);
  CHECK(commands[1].find("--plugin llm-layer --set model=llama3.1-70b") != std::string::npos);
  CHECK(any_line_has(commands, "srun -N 1 -n 4 dgxhost --plugin all_reduce"));
  CHECK(any_line_has(commands, "platform-check on each node"));
  CHECK(commands.back().find("dgxhost --plugin platform-check (") == 0);
  CHECK_FALSE(any_line_has(commands, "reduce_scatter"));  // 0.1% of the step is not worth a measurement
}

TEST_CASE("fill_assumed names the keys the run did not print and keeps them out of its table") {
  ResultRow run = imported_run(1463, 11.2);
  const std::vector<std::string> filled = fill_assumed(run, projection());
  CHECK(filled == std::vector<std::string>{"framework", "parallel.ep"});
  CHECK(run.config_text("framework") == "nemo-26.02.01");
  CHECK(run.find_field("assumed")->value == "framework = nemo-26.02.01, parallel.ep = 1");
  CHECK(std::find(run.hidden_config.begin(), run.hidden_config.end(), "framework") != run.hidden_config.end());
}

TEST_CASE("apply_projections puts each projection before its run, and a slower run makes the report exit 5") {
  Report report;
  report.rows.push_back(imported_run(1463, 11.2));
  report.rows.push_back(imported_run(1650, 9.9));
  ResultRow comm;
  comm.workload = "all_reduce";
  comm.mode = ResultMode::measured;
  comm.add_metric({"busbw", 350, "GB/s", false, {}});
  report.rows.push_back(comm);
  const std::vector<Projection> projections = {{projection(), {}, "dgxhost --plugin llm-pretrain --mode project"},
                                               {projection(), {}, "dgxhost --plugin llm-pretrain --mode project"},
                                               {std::nullopt, "all_reduce only measures", {}}};
  const ProjectionCounts n = apply_projections(report, projections);
  CHECK(n.slower == 1);
  CHECK(n.as_projected == 1);
  CHECK(n.none == 1);
  REQUIRE(report.rows.size() == 5);
  CHECK(report.rows[0].mode == ResultMode::projected);
  CHECK(report.rows[0].table == "imported nemo");
  CHECK(report.rows[0].config.find("framework") == nullptr);  // only the run's keys, for one table
  CHECK(report.rows[1].find_field("verdict.projection")->value == "slower");
  CHECK(report.rows[1].find_metric("ratio_to_projection")->value == doctest::Approx(1463.0 / 1660));
  CHECK(report.rows[3].find_field("verdict.projection")->value == "as projected");
  CHECK(report.rows[4].find_field("verdict.projection")->value == "no projection");
  CHECK(report.exit_code == 5);
  const Note& note = report.notes.back();
  CHECK(note.title == "Against the projection");
  CHECK(note.text.find("1 as projected, 1 slower, 0 faster, 1 without a projection") == 0);
  CHECK(note.text.find("to settle it:") != std::string::npos);
  CHECK(note.text.find("all_reduce only measures") != std::string::npos);
}
