// NeMo 2's log: its progress bar / logging prints one line per step with the step's wall time,
//   Training epoch 0, iteration 10/99 | lr: 1.5e-05 | global_batch_size: 128 | global_step: 10 |
//   reduced_train_loss: 10.85 | train_step_timing in s: 12.66 | consumed_samples: 1408
// and, with the FLOPs callback, the model TFLOP/s per GPU (`TFLOPS_per_GPU: 782.3`). NeMo prints neither the
// model nor the parallel layout there: they come from --set.
//
// NeMo 1.x prints only Lightning's tqdm progress bar, whose rate is the one timing it gives,
//   Epoch 0:   1%|          | 795/77225 [9:07:58<878:01:48, 41.36s/it, loss=3.1, ..., global_step=794.0, ...]
// (tqdm's smoothed seconds per step; `it/s` when a step takes under a second). A terminal's progress bar rewrites
// itself with carriage returns, so one line of the file may hold many updates: each is read, a step once.
#include "dgx/log_import/log_text.hpp"
#include "parsed_run.hpp"

namespace dgx::logs {

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

// The seconds per step of a tqdm bar's "[elapsed<remaining, 41.36s/it, ...]", or of "2.50it/s".
std::optional<double> tqdm_seconds(std::string_view s) {
  const std::size_t open = s.find('[');
  const std::size_t lt = open == std::string_view::npos ? open : s.find('<', open);
  const std::size_t comma = lt == std::string_view::npos ? lt : s.find(", ", lt);
  if (comma == std::string_view::npos) {
    return std::nullopt;
  }
  std::string_view rate = s.substr(comma + 2);
  rate = rate.substr(0, rate.find_first_of(",]"));
  const bool per_step = rate.size() > 4 && rate.substr(rate.size() - 4) == "s/it";
  const bool per_second = rate.size() > 4 && rate.substr(rate.size() - 4) == "it/s";
  const auto value = per_step || per_second ? parse_number(rate.substr(0, rate.size() - 4)) : std::nullopt;
  if (!value || *value <= 0) {
    return std::nullopt;
  }
  return per_step ? *value : 1.0 / *value;
}

bool is_tqdm_step(std::string_view s) {
  return s.find("global_step=") != std::string_view::npos && tqdm_seconds(s).has_value();
}

struct StepReader {
  ParsedRun& run;
  const std::string& origin;
  double last_step = -1;
  bool tqdm = false;  // the seconds are tqdm's rate, not train_step_timing

  // One progress update: its step (global_step, else the next), its seconds.
  std::optional<Failure> read(std::string_view s, int number) {
    const bool timed = s.find(kStepTiming) != std::string_view::npos;
    if (!timed && !is_tqdm_step(s)) {
      return std::nullopt;
    }
    const auto seconds = timed ? number_after(s, kStepTiming) : tqdm_seconds(s);
    if (!seconds) {
      return bad_input(origin, number, "a step line without its train_step_timing value (a line cut short?)");
    }
    const auto step = number_after(s, "global_step");
    if (step && *step == last_step) {
      return std::nullopt;  // the bar redrawn for the same step
    }
    if (step && *step < last_step) {
      return bad_input(origin, number,
                       "two runs in one file: global_step restarts at " +
                           std::to_string(static_cast<long long>(*step)) + "; import one run per file");
    }
    last_step = step.value_or(last_step + 1);
    if (auto gbs = number_after(s, "global_batch_size")) {
      if (auto problem = run.agree("train.gbs", static_cast<std::int64_t>(*gbs), number, origin)) {
        return problem;
      }
    }
    tqdm = tqdm || !timed;
    run.series.push_back(*seconds);
    run.steps.push_back(static_cast<long>(last_step));
    if (auto tflops = tflops_of(s)) {
      run.tflops.push_back(*tflops);
    }
    run.first_line = run.first_line == 0 ? number : run.first_line;
    run.last_line = number;
    return std::nullopt;
  }
};

}  // namespace

bool looks_like_nemo(std::string_view text) {
  if (text.find(kStepTiming) != std::string_view::npos) {
    return true;
  }
  for (const Line& line : split_lines(text)) {
    if (is_tqdm_step(line.text)) {
      return true;
    }
  }
  return false;
}

Expected<ParsedRun> parse_nemo_log(LineSource& lines, const std::string& origin) {
  ParsedRun run;
  run.tool = "nemo";
  run.kind = RunKind::training;
  run.workload = "llm-pretrain";
  StepReader reader{run, origin};
  const auto stopped = for_each_line(lines, [&](const Line& line) -> std::optional<Failure> {
    for (std::string_view rest = line.text; !rest.empty();) {  // tqdm redraws its bar with '\r' on one line
      const std::size_t cr = rest.find('\r');
      if (auto problem = reader.read(rest.substr(0, cr), line.number)) {
        return problem;
      }
      rest = cr == std::string_view::npos ? std::string_view() : rest.substr(cr + 1);
    }
    return std::nullopt;
  });
  if (stopped) {
    return *stopped;
  }
  run.timing = reader.tqdm ? "NeMo's progress bar: tqdm's smoothed seconds per step (s/it)"
                           : "NeMo's train_step_timing: the wall time of each step";
  return run;
}

}  // namespace dgx::logs
