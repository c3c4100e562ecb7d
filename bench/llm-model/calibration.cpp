// bench_calibration: projects every row of configs/baselines/calibration.toml and prints published value,
// projection and error per row, then mean / max absolute percentage error per section and overall.
// --breakdown also prints where each row's step time goes.
#include "dgx/llm/calibration.hpp"
#include "dgx/llm/model_catalog.hpp"
#include "dgx/llm/step_model.hpp"
#include "dgx/llm/system_catalog.hpp"

#include <cmath>
#include <cstdio>
#include <string_view>

namespace {

using namespace dgx::llm;

void print_breakdown(const CalibrationRow& row) {
  auto model = find_model(row.model);
  auto system = find_system(row.system);
  if (!model || !system) {
    return;
  }
  StepModel step_model(*model, *system);
  const auto p = step_model.project(row.gpus, row.train);
  if (!p) {
    return;
  }
  const StepBreakdown& b = p->breakdown;
  std::printf("      step %.3f s = compute %.3f + tp %.3f + cp %.3f + ep %.3f + pp %.3f + bubble %.3f + dp %.3f + "
              "optimizer %.3f + stragglers %.3f | MFU %.1f%% | memory %.1f GiB\n",
              p->step_time_s, b.compute, b.tp_comm, b.cp_comm, b.ep_comm, b.pp_comm, b.bubble, b.dp_comm, b.optimizer,
              b.stragglers, 100 * p->mfu, p->memory.total() / (1024.0 * 1024.0 * 1024.0));
}

}  // namespace

int main(int argc, char** argv) {
  const bool breakdown = argc > 1 && std::string_view(argv[1]) == "--breakdown";
  const auto rows = load_calibration();
  if (!rows) {
    std::fprintf(stderr, "bench_calibration: %s\n", rows.error().message.c_str());
    return 1;
  }
  const auto outcomes = run_calibration(*rows);
  std::printf("Calibration: projected (%s) vs published (configs/baselines/calibration.toml)\n\n",
              "dgx-llm-model, roofline provider");
  std::printf("%-3s %-28s %-22s %12s %12s %8s\n", "sec", "row", "metric", "published", "projected", "error");
  for (const CalibrationOutcome& o : outcomes) {
    if (!o.failure.empty()) {
      std::printf("%-3s %-28s %-22s %12.6g %12s  FAILED: %s\n", o.row.section.c_str(), o.row.label.c_str(),
                  std::string(to_string(o.row.metric)).c_str(), o.row.published, "-", o.failure.c_str());
      continue;
    }
    std::printf("%-3s %-28s %-22s %12.6g %12.6g %+7.1f%%\n", o.row.section.c_str(), o.row.label.c_str(),
                std::string(to_string(o.row.metric)).c_str(), o.row.published, o.projected, 100 * o.error);
    if (breakdown) {
      print_breakdown(o.row);
    }
  }
  std::printf("\n%-8s %5s %7s %15s %14s\n", "section", "rows", "failed", "mean |error|", "max |error|");
  bool failed = false;
  for (const ErrorStats& s : error_stats(outcomes)) {
    std::printf("%-8s %5d %7d %14.2f%% %13.2f%%\n", s.section.c_str(), s.rows, s.failed, 100 * s.mean_abs,
                100 * s.max_abs);
    failed = failed || s.failed > 0;
  }
  return failed ? 1 : 0;
}
