// NeMo 2's log: its progress bar / logging prints one line per step with the step's wall time,
//   Training epoch 0, iteration 10/99 | lr: 1.5e-05 | global_batch_size: 128 | global_step: 10 |
//   reduced_train_loss: 10.85 | train_step_timing in s: 12.66 | consumed_samples: 1408
// and, with the FLOPs callback, the model TFLOP/s per GPU (`TFLOPS_per_GPU: 782.3`). NeMo prints neither the
// model nor the parallel layout there: they come from --set.
#include "log_text.hpp"
#include "parsed_run.hpp"

namespace dgx::detail {

namespace {

constexpr std::string_view kStepTiming = "train_step_timing in s";

std::optional<double> tflops_of(std::string_view line) {
  for (std::string_view label : {"TFLOPS_per_GPU", "tflops_per_sec_per_gpu"}) {
    if (auto v = number_after(line, label)) {
      return v;
    }
  }
  return std::nullopt;
}

}  // namespace

bool looks_like_nemo(std::string_view text) { return text.find(kStepTiming) != std::string_view::npos; }

Expected<ParsedRun> parse_nemo_log(std::string_view text, const std::string& origin) {
  ParsedRun run;
  run.tool = "nemo";
  run.kind = RunKind::training;
  run.workload = "llm-pretrain";
  run.timing = "NeMo's train_step_timing: the wall time of each step";
  double last_step = -1;
  for (const Line& line : split_lines(text)) {
    if (line.text.find(kStepTiming) == std::string_view::npos) {
      continue;
    }
    const auto seconds = number_after(line.text, kStepTiming);
    if (!seconds) {
      return bad_input(origin, line.number, "a step line without its train_step_timing value (a line cut short?)");
    }
    const auto step = number_after(line.text, "global_step");
    if (step && *step <= last_step) {
      return bad_input(origin, line.number,
                       "two runs in one file: global_step restarts at " +
                           std::to_string(static_cast<long long>(*step)) + "; import one run per file");
    }
    last_step = step.value_or(last_step + 1);
    if (auto gbs = number_after(line.text, "global_batch_size")) {
      if (auto problem = run.agree("train.gbs", static_cast<std::int64_t>(*gbs), line.number, origin)) {
        return *problem;
      }
    }
    run.series.push_back(*seconds);
    if (auto tflops = tflops_of(line.text)) {
      run.tflops.push_back(*tflops);
    }
    run.first_line = run.first_line == 0 ? line.number : run.first_line;
    run.last_line = line.number;
  }
  return run;
}

}  // namespace dgx::detail
