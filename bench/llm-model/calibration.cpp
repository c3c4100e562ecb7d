// bench_calibration: projects every row of the pretraining calibration sets (configs/baselines/calibration.toml,
// calibration-2.toml, calibration-3.toml) and of the fine-tuning set (configs/baselines/finetune.toml and set 3's
// MLPerf LoRA rows), each with the framework profile of its release, and prints published value, projection and error
// per row, then mean / max absolute percentage error per section (release), per class (system × precision), per group
// (framework × system × precision, the unit of the accuracy targets: mean <= 4 %, max <= 12 %) and overall, per set.
// --breakdown also prints where each row's step time goes.
#include "dgx/llm/calibration.hpp"
#include "dgx/llm/framework.hpp"
#include "dgx/llm/model_catalog.hpp"
#include "dgx/llm/step_model.hpp"
#include "dgx/llm/system_catalog.hpp"

#include <cmath>
#include <cstdio>
#include <string_view>

namespace {

using namespace dgx::llm;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

MemoryCheck memory_check(const CalibrationRow& row) {
  return row.check_memory ? MemoryCheck::enforce : MemoryCheck::report;
}

void print_breakdown(const CalibrationRow& row) {
  auto model = find_model(row.model);
  auto system = find_system(row.system);
  auto framework = find_framework(row.framework);
  if (!model || !system || !framework) {
    return;
  }
  StepModel step_model(*model, apply_framework(*system, *framework));
  step_model.set_finetune(row.finetune);
  const auto p = step_model.project(row.gpus, row.train, std::nullopt, memory_check(row));
  if (!p) {
    return;
  }
  const StepBreakdown& b = p->breakdown;
  std::printf("      step %.3f s = compute %.3f + tp %.3f + cp %.3f + ep %.3f + pp %.3f + bubble %.3f + dp %.3f + "
              "optimizer %.3f + stragglers %.3f + offload %.3f | MFU %.1f%% | memory %.1f GiB\n",
              p->step_time_s, b.compute, b.tp_comm, b.cp_comm, b.ep_comm, b.pp_comm, b.bubble, b.dp_comm, b.optimizer,
              b.stragglers, b.offload, 100 * p->mfu, p->memory.total() / kGiB);
}

void print_stats(const char* title, const std::vector<ErrorStats>& stats) {
  std::printf("\n%-44s %5s %7s %14s %13s\n", title, "rows", "failed", "mean |error|", "max |error|");
  for (const ErrorStats& s : stats) {
    std::printf("%-44s %5d %7d %13.2f%% %12.2f%%\n", s.section.c_str(), s.rows, s.failed, 100 * s.mean_abs,
                100 * s.max_abs);
  }
}

/// Prints one set; false when it could not be read or a row could not be projected.
bool report(const char* files, const Expected<std::vector<CalibrationRow>>& rows, bool breakdown) {
  if (!rows) {
    std::fprintf(stderr, "bench_calibration: %s\n", rows.error().message.c_str());
    return false;
  }
  const auto outcomes = run_calibration(*rows);
  std::printf("Calibration: projected (%s) vs published (%s)\n\n",
              "dgx-llm-model, roofline provider, each row with its release's framework profile", files);
  std::printf("%-8s %-42s %-15s %-5s %12s %12s %8s\n", "section", "row", "framework", "fsdp", "published", "projected",
              "error");
  for (const CalibrationOutcome& o : outcomes) {
    const char* fsdp = o.row.train.fsdp ? "yes" : "no";
    if (!o.failure.empty()) {
      std::printf("%-8s %-42s %-15s %-5s %12.6g %12s  FAILED: %s\n", o.row.section.c_str(), o.row.label.c_str(),
                  o.row.framework.c_str(), fsdp, o.row.published, "-", o.failure.c_str());
      continue;
    }
    std::printf("%-8s %-42s %-15s %-5s %12.6g %12.6g %+7.1f%%\n", o.row.section.c_str(), o.row.label.c_str(),
                o.row.framework.c_str(), fsdp, o.row.published, o.projected, 100 * o.error);
    if (!o.row.check_memory) {
      std::printf("      memory not checked: %s\n", o.row.memory_note.c_str());
    }
    if (breakdown) {
      print_breakdown(o.row);
    }
  }
  const std::vector<ErrorStats> sections = error_stats(outcomes);
  print_stats("section (release)", sections);
  print_stats("class", class_stats(outcomes));
  print_stats("group (framework system precision)", group_stats(outcomes));
  return sections.back().failed == 0;
}

}  // namespace

int main(int argc, char** argv) {
  const bool breakdown = argc > 1 && std::string_view(argv[1]) == "--breakdown";
  const bool pretraining = report("configs/baselines/calibration.toml, calibration-2.toml, calibration-3.toml",
                                  load_calibration(), breakdown);
  std::printf("\n");
  const bool finetuning = report("configs/baselines/finetune.toml and calibration-3.toml's LoRA rows",
                                 load_finetune_calibration(), breakdown);
  return pretraining && finetuning ? 0 : 1;
}
