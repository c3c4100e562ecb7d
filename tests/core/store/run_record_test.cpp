// What the store keeps of a report (core/src/store/run_record.cpp): the context columns, and which rows of
// different runs are one series.
#include <doctest/doctest.h>

#include "dgx/core/results/document_reader.hpp"
#include "dgx/core/support/utc_time.hpp"
#include "run_record.hpp"  // private to core/src/store: the test target adds that folder

using namespace dgx;
using namespace dgx::detail;

namespace {

Report two_node_run() {
  auto report = parse_results(R"({"schema": "dgx.results/1", "status": {"exit_code": 0, "ok": true},
    "context": {"time": "2026-11-30T01:02:03Z", "dgxhost": {"version": "0.9.0", "git_revision": "abc123"},
      "host": {"hostname": "node-a"}, "nodes": [{"rank": 0, "hostname": "node-b"}, {"rank": 1, "hostname": "node-a"},
      {"rank": 2, "hostname": "node-b"}],
      "gpus": {"count": 8, "devices": [{"index": 0, "name": "NVIDIA H100 80GB HBM3"}]},
      "software": {"cuda_driver": "560.35", "cuda_runtime": "12.6", "nccl": "2.23.4"},
      "ranks": {"rank": 0, "world_size": 16}, "plugin": {"name": "llm-pretrain", "version": "2.1.0"},
      "workload": "pretrain", "preset": "llama70b", "mode": "measure",
      "config": {"system": "h100-sxm", "framework": "nemo-26.02.01", "gpus": 16}},
    "results": [
      {"workload": "pretrain", "plugin": "llm-pretrain", "mode": "measured", "label": "step",
       "config": {"framework": "nemo-26.02.01", "precision": "fp8", "gpus": 16},
       "metrics": {"step_time": {"value": 2.5, "unit": "s"}}, "info": {"timing": "device events"}},
      {"workload": "pretrain", "plugin": "llm-pretrain", "mode": "measured", "label": "step",
       "config": {"precision": "bf16", "gpus": 16, "framework": "nemo-26.02.01"},
       "metrics": {"step_time": {"value": 3.5, "unit": "s"}}}]})",
                              "run.json");
  REQUIRE(report.has_value());
  return report.value();
}

}  // namespace

TEST_CASE("a run's context becomes columns: time, hosts of every rank, GPU, software, framework, revision") {
  const RunRecord r = record_of(two_node_run(), "run.json");
  const RunContext& c = r.context;
  CHECK(iso_utc(c.time) == "2026-11-30T01:02:03Z");
  CHECK(c.hosts == "node-a,node-b");  // every rank's host, once each, sorted
  CHECK(c.gpu_model == "NVIDIA H100 80GB HBM3");
  CHECK(c.gpus == 16);
  CHECK(c.driver == "560.35");
  CHECK(c.cuda == "12.6");
  CHECK(c.nccl == "2.23.4");
  CHECK(c.framework == "nemo-26.02.01");
  CHECK(c.dgxhost_revision == "abc123");
  CHECK(c.plugin == "llm-pretrain");
  CHECK(c.plugin_version == "2.1.0");
  CHECK(c.preset == "llama70b");
  CHECK(c.source == "run.json");
  REQUIRE(r.points.size() == 2);
  CHECK(r.points[0].key.hosts == "node-a,node-b");
  CHECK(r.points[0].key.system == "h100-sxm");
  CHECK(r.points[0].timing == "device events");
}

TEST_CASE("a framework release continues a series: it is context, not identity, unless two rows differ only by it") {
  Report run = two_node_run();
  const RunRecord before = record_of(run, "a.json");
  run.rows[0].config.set("framework", "nemo-26.04");
  const RunRecord after = record_of(run, "b.json");
  CHECK(series_hash(before.points[0].key) == series_hash(after.points[0].key));
  CHECK(series_hash(before.points[0].key) != series_hash(before.points[1].key));  // fp8 and bf16

  // An explore comparing releases: two rows alike but for the framework are two series, each keeping it.
  Report compared = two_node_run();
  compared.rows[1].config = compared.rows[0].config;
  compared.rows[1].config.set("framework", "torchtitan");
  const RunRecord both = record_of(compared, "c.json");
  CHECK(series_hash(both.points[0].key) != series_hash(both.points[1].key));
  CHECK(both.points[1].key.config.find("torchtitan") != std::string::npos);
}

TEST_CASE("the same configuration in another key order is the same series, an imported row is of mode imported") {
  Report run = two_node_run();
  const RunRecord a = record_of(run, "a.json");
  json::Object reordered;
  reordered.set("gpus", 16);
  reordered.set("precision", "fp8");
  reordered.set("framework", "nemo-26.02.01");
  run.rows[0].config = reordered;
  const RunRecord b = record_of(run, "b.json");
  CHECK(series_hash(a.points[0].key) == series_hash(b.points[0].key));
  CHECK(a.document_hash != b.document_hash);

  run.rows[0].add_field({"source", "imported: torchtitan", true});
  const RunRecord imported = record_of(run, "log.txt");
  CHECK(imported.points[0].key.mode == "imported");
  CHECK(imported.points[0].key.hosts.empty());  // not measured here: no host of this run measured it
  CHECK(series_hash(imported.points[0].key) != series_hash(a.points[0].key));
}

namespace {

// The two-node run with what llm-pretrain declares: model, precision, GPUs and the layout identify a run.
Report declared_run() {
  Report run = two_node_run();
  for (ResultRow& row : run.rows) {
    row.config.set("parallel.tp", 4);
    row.config.set("cost.provider", "aws");
  }
  WorkloadDeclarations d;
  d.plugin = "llm-pretrain";
  d.workload = "pretrain";
  d.metrics = {{"step_time", "s", Better::lower, {}, {}}};
  d.identity_keys = std::vector<std::string>{"precision", "gpus", "parallel.*"};
  run.workloads.push_back(d);
  return run;
}

}  // namespace

TEST_CASE("declared identity keys make the series: a change in a key not listed continues it") {
  Report run = declared_run();
  const RunRecord before = record_of(run, "a.json");
  CHECK(before.points[0].key.config == R"({"parallel.tp":4,"precision":"fp8"})");  // gpus is a column of its own
  CHECK(before.points[0].key.better == "lower");
  run.rows[0].config.set("cost.provider", "gcp");  // context: the price
  const RunRecord cheaper = record_of(run, "b.json");
  CHECK(series_hash(before.points[0].key) == series_hash(cheaper.points[0].key));
  run.rows[0].config.set("parallel.tp", 8);  // identity: the layout
  const RunRecord wider = record_of(run, "c.json");
  CHECK(series_hash(before.points[0].key) != series_hash(wider.points[0].key));
}

TEST_CASE("rows alike in their identity but for context keep their whole configuration, each a series") {
  Report run = declared_run();
  run.rows[1].config = run.rows[0].config;
  run.rows[1].config.set("cost.provider", "gcp");  // an explore comparing providers
  const RunRecord r = record_of(run, "a.json");
  CHECK(series_hash(r.points[0].key) != series_hash(r.points[1].key));
  CHECK(r.points[1].key.config.find("gcp") != std::string::npos);
}

TEST_CASE("a declared identity metric names the case: a message size is part of the series") {
  Report run = declared_run();
  run.workloads[0].identity_keys->push_back("size");
  run.rows[0].add_metric({"size", 1048576, "B", false, {}});
  run.rows[1].config = run.rows[0].config;
  run.rows[1].add_metric({"size", 1073741824, "B", false, {}});
  const RunRecord r = record_of(run, "a.json");
  CHECK(r.points[0].key.config.find(R"("size":1048576)") != std::string::npos);
  CHECK(series_hash(r.points[0].key) != series_hash(r.points[1].key));
  CHECK(r.points[1].key.label == "step");  // two series by their size, not "#2" of one
}
