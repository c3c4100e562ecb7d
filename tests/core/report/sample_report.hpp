// A report of measured and projected rows, with hidden metrics, fields and notes, for the reporters' tests.
#pragma once

#include "dgx/core/results/document.hpp"

namespace dgx::testing {

inline Report sample_report() {
  Report report;
  report.context.set("workload", "gemm");
  for (const int n : {1024, 8192}) {
    ResultRow row;
    row.workload = "gemm";
    row.plugin = "gemm-plugin";
    row.mode = ResultMode::measured;
    row.config.set("precision", "bf16");
    row.config.set("n", n);
    row.add_metric({"time.median", n == 1024 ? 2.5e-5 : 1.4e-3, "s", false, {}});
    row.add_metric({"tflops", n == 1024 ? 86.0 : 785.4, "TFLOP/s", false, {}});
    row.add_metric({"bytes", 3.0 * n * n * 2, "B", false, {}});
    row.add_metric({"internal", 1.0, "1", true, {}});
    row.add_field({"timing", "device events", true});
    row.sample_times = {1.0, 2.0};
    report.rows.push_back(row);
  }
  ResultRow projected;
  projected.workload = "llm-pretrain";
  projected.plugin = "llm";
  projected.mode = ResultMode::projected;
  projected.table = "explore";
  projected.config.set("gpus", 64);
  projected.config.set("parallel.tp", 4);
  projected.hidden_config.emplace_back("parallel.tp");
  projected.add_metric({"days", 12.5, "days", false, {}});
  projected.add_metric({"tokens_per_s_per_gpu", 1065.0, "tokens/s", false, "tok/s/GPU"});
  projected.add_metric({"step_time", 15.4, "s", false, "step"});
  projected.add_field({"layout", "TP4 PP4", false});
  report.rows.push_back(projected);
  report.notes.push_back({true, "Assumptions", "system h100-sxm"});
  report.notes.push_back({false, "Recommendation", "64 GPUs"});
  return report;
}

}  // namespace dgx::testing
