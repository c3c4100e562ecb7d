// bench_calibration: projects every row of the pretraining calibration sets (configs/baselines/calibration.toml,
// calibration-2.toml, calibration-3.toml) and of the fine-tuning set (configs/baselines/finetune.toml and set 3's
// MLPerf LoRA rows), each with the framework profile of its release, and prints published value, projection and error
// per row, then mean / max absolute percentage error per section (release), per class (system × precision), per group
// (framework × system × precision, the unit of the accuracy targets: mean <= 4 %, max <= 12 %) and overall, per set.
// --breakdown also prints where each row's step time goes.
#include "dgx/llm/calibration.hpp"
#include "dgx/llm/accuracy_band.hpp"
#include "dgx/llm/catalog.hpp"
#include "dgx/llm/step_model.hpp"

#include <algorithm>
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
  std::printf("      step %.3f s = compute %.3f + tp %.3f + cp %.3f + ep %.3f + host %.3f + pp %.3f + bubble %.3f + dp "
              "%.3f + optimizer %.3f + stragglers %.3f + offload %.3f | MFU %.1f%% | memory %.1f GiB\n",
              p->step_time_s, b.compute, b.tp_comm, b.cp_comm, b.ep_comm, b.host, b.pp_comm, b.bubble, b.dp_comm,
              b.optimizer, b.stragglers, b.offload, 100 * p->mfu, p->memory.total() / kGiB);
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
  // The band's coverage: how often a published value lies inside its own band, each band computed without that row
  // (accuracy_band.hpp); per set and overall.
  const AccuracyModel& bands = AccuracyModel::embedded();
  std::printf("\nAccuracy band (leave-one-out) per row: published inside projection x (1 +- band)?\n");
  std::printf("%-44s %5s %7s %9s %11s\n", "section", "rows", "inside", "coverage", "mean band");
  struct Tally {
    int rows = 0, inside = 0;
    double width = 0;
  };
  std::vector<std::pair<std::string, Tally>> tallies;
  Tally all;
  for (std::size_t i = 0; i < bands.outcomes().size(); ++i) {
    const CalibrationOutcome& o = bands.outcomes()[i];
    const AccuracyBand band = bands.band_without(bands.query(i), i);
    const bool inside = std::abs(o.error) <= band.width;
    auto found = std::find_if(tallies.begin(), tallies.end(), [&](const auto& t) { return t.first == o.row.section; });
    if (found == tallies.end()) {
      tallies.emplace_back(o.row.section, Tally{});
      found = tallies.end() - 1;
    }
    for (Tally* t : {&found->second, &all}) {
      ++t->rows;
      t->inside += inside ? 1 : 0;
      t->width += band.width;
    }
  }
  tallies.emplace_back("all", all);
  for (const auto& [section, t] : tallies) {
    std::printf("%-44s %5d %7d %8.1f%% %10.1f%%\n", section.c_str(), t.rows, t.inside, 100.0 * t.inside / t.rows,
                100.0 * t.width / t.rows);
  }
  const AccuracyModel::Coverage coverage = bands.coverage();
  std::printf("\nband coverage: %d of %d rows (%.1f%%; target 80-95%%)\n", coverage.inside, coverage.rows,
              100 * coverage.share());
  return pretraining && finetuning ? 0 : 1;
}
