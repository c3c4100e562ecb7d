#include "dgx/core/measure/runner.hpp"

#include <algorithm>

#include "dgx/core/measure/iteration_check.hpp"
#include "dgx/core/measure/stopping_criterion.hpp"
#include "dgx/core/plugin/cancellation.hpp"
#include "dgx/core/plugin/detail/strided.hpp"
#include "dgx/core/support/text.hpp"
#include "measured_row.hpp"
#include "sampling.hpp"

namespace dgx {

namespace {

// add_metric and add_field of the plugin extend `row` while this scope lives, and nothing after it, however the
// scope is left: HostServices outlives every case, so it must never keep a pointer to a finished row.
class CurrentRowScope {
public:
  CurrentRowScope(HostServices& services, ResultRow& row) : services_(services) { services_.set_current_row(&row); }
  CurrentRowScope(const CurrentRowScope&) = delete;
  CurrentRowScope& operator=(const CurrentRowScope&) = delete;
  ~CurrentRowScope() { services_.set_current_row(nullptr); }

private:
  HostServices& services_;
};

// What one case of measure mode works with.
struct CaseRun {
  WorkloadInstance& instance;
  const RunnerSettings& settings;
  HostComm& comm;
  const Logger& logger;
  std::uint32_t index;
  std::uint32_t count;
  bool check_iterations;  // whether run() honours request.iterations is a property of its code: asked once
};

// A sample cut short before any could be counted: by Ctrl-C, or by runner.max_time, when the case cannot be
// measured within the limit.
Failure cut_failure(const CaseRun& run, const std::string& phase) {
  if (cancel_requested()) {
    return Failure{ExitCode::interrupted, "cancelled by the user"};
  }
  const WorkloadInfo& w = run.instance.workload();
  return Failure{ExitCode::run_failed,
                 w.plugin->name + ":" + w.name + ": runner.max_time (" + text::format_number(run.settings.max_time, 3) +
                     " s) ended a sample of " + phase + " before one finished: one sample of " +
                     std::to_string(run.settings.batch) +
                     " iteration(s) takes longer. Raise runner.max_time, or lower runner.batch or the case's size"};
}

// How the watchdog names the limit when a call outlives it (call_guard.hpp).
std::string max_time_reason(const CaseRun& run) {
  return "after runner.max_time (" + text::format_number(run.settings.max_time, 3) +
         " s) ran out: run() must return, or poll cancel_requested, by then";
}

// The first sample of a phase may take this many times runner.max_time before it is cut: a case without any sample
// fails the run, and on a loaded machine one iteration of a large case (a gigabyte through host memory) can outlast
// max_time. Once a sample is in, max_time holds again: a slow machine gives fewer samples, not a failed run.
constexpr double kFirstSampleAllowance = 10;

// The deadline of a phase that began at `start`: generous until its first sample is in (kFirstSampleAllowance).
double phase_deadline(const CaseRun& run, double start, bool first_sample) {
  return start + run.settings.max_time * (first_sample ? kFirstSampleAllowance : 1.0);
}

// How the watchdog names the first sample's allowance when a call outlives it.
std::string first_sample_reason(const CaseRun& run) {
  return "after " + text::format_number(run.settings.max_time * kFirstSampleAllowance, 3) + " s (" +
         text::format_number(kFirstSampleAllowance, 2) + " x runner.max_time, a phase's first sample) ran out: run() " +
         "must return, or poll cancel_requested, by then";
}

dgx_sample_request first_request(const CaseRun& run, bool warmup) {
  return {sizeof(dgx_sample_request), run.index, 0, run.settings.batch, warmup ? 1 : 0, run.settings.cold ? 1 : 0};
}

// Refuses a workload whose run() ignores request.iterations (iteration_check.hpp). Its samples are warm-up
// samples, numbered from `index` on.
CallResult check_iterations(const CaseRun& run, std::uint64_t& index) {
  const CallDeadline deadline(detail::now() + run.settings.max_time,
                              max_time_reason(run));  // bounds one sample too, if run() polls
  dgx_sample_request request = first_request(run, true);
  dgx_sample_result result{};
  const IterationCheck::Timer time = [&](std::uint32_t iterations) -> Expected<double> {
    request.iterations = iterations;
    request.sample_index = index++;
    auto per_iteration = detail::take_sample(run.instance, run.comm, request, result);
    if (!per_iteration) {
      return per_iteration.error();
    }
    if (!per_iteration.value()) {
      return cut_failure(run, "the iteration check");
    }
    return *per_iteration.value() * iterations;
  };
  auto ignored = IterationCheck::run(run.settings.batch, time);
  if (!ignored) {
    return ignored.error();
  }
  if (!ignored.value()) {
    return std::nullopt;
  }
  const WorkloadInfo& w = run.instance.workload();
  const std::string batch = std::to_string(run.settings.batch);
  return Failure{ExitCode::run_failed,
                 w.plugin->name + ":" + w.name + ": run() ignores request.iterations: " + ignored.value()->evidence() +
                     "; with runner.batch=" + batch + " its times per iteration would be about " + batch +
                     " times too small. Fix run() to execute request.iterations iterations back to back, or measure " +
                     "with runner.batch=1"};
}

// Untimed warm-up: the iteration check when samples batch several iterations (first case only), then at least
// `warmup` samples and `warmup_time` seconds, cut short by max_time or cancellation.
CallResult warm_up(const CaseRun& run) {
  std::uint64_t index = 0;
  if (run.check_iterations && run.settings.batch > 1) {
    if (auto failure = check_iterations(run, index)) {
      return failure;
    }
  }
  dgx_sample_request request = first_request(run, true);
  dgx_sample_result result{};
  const double start = detail::now();
  CallDeadline deadline(phase_deadline(run, start, index == 0),
                        index == 0 ? first_sample_reason(run) : max_time_reason(run));  // bounds a sample too
  for (std::uint64_t i = 0;; ++i) {
    const double elapsed = detail::now() - start;
    const bool done = !(i < run.settings.warmup || elapsed < run.settings.warmup_time);
    if (detail::agreed(run.comm, done || cancel_requested() || elapsed > run.settings.max_time)) {
      break;
    }
    request.sample_index = index++;
    auto sample = detail::take_sample(run.instance, run.comm, request, result);
    if (!sample) {
      return sample.error();
    }
    if (!sample.value()) {
      if (index == 1) {
        return cut_failure(run, "the warm-up");  // no sample of this case has finished
      }
      break;  // warm enough: the timed phase has a limit of its own
    }
    deadline.move_to(phase_deadline(run, start, false), max_time_reason(run));
  }
  return std::nullopt;
}

// The timed phase: samples until the stopping criterion says so. `result` keeps the last sample's report.
CallResult sample(const CaseRun& run, StoppingCriterion& criterion, dgx_sample_result& result) {
  dgx_sample_request request = first_request(run, false);
  const double start = detail::now();
  CallDeadline deadline(phase_deadline(run, start, true), first_sample_reason(run));  // bounds a sample too
  bool stop = false;
  while (!stop) {
    request.sample_index = criterion.samples().size();
    auto sample = detail::take_sample(run.instance, run.comm, request, result);
    if (!sample) {
      return sample.error();
    }
    if (!sample.value()) {  // cut by Ctrl-C or max_time: not counted, and the phase ends with what it has
      run.logger.end_progress();
      if (criterion.samples().empty()) {
        return cut_failure(run, "the timed phase");
      }
      criterion.stop_at_cut(detail::now() - start, cancel_requested());
      return std::nullopt;
    }
    deadline.move_to(phase_deadline(run, start, false), max_time_reason(run));
    stop = detail::agreed(run.comm, criterion.add(*sample.value(), detail::now() - start, cancel_requested()));
    run.logger.progress(run.instance.workload().name,
                        std::min(1.0, criterion.measured_time() / std::max(run.settings.min_time, 1e-9)),
                        "case " + std::to_string(run.index + 1) + "/" + std::to_string(run.count));
  }
  run.logger.end_progress();
  return std::nullopt;
}

// One case: begin_case, warm-up, timed samples, the row, end_case. The row is kept even when end_case fails
// (a correctness check): the numbers were measured.
CallResult measure_case(const CaseRun& run, HostServices& services, const json::Object& row_config, Report& report) {
  dgx_case_desc desc{};
  if (auto failure = run.instance.begin_case(run.index, desc)) {
    return failure;
  }
  if (!detail::readable_array(desc.config, desc.config_count)) {
    const WorkloadInfo& w = run.instance.workload();
    return Failure{ExitCode::run_failed, w.plugin->name + ":" + w.name +
                                             ": begin_case returned a case whose config "
                                             "array is NULL or has a bad stride"};
  }
  ResultRow row = detail::case_row(run.instance.workload(), desc, row_config);
  run.instance.set_case_label(row.label);
  CallResult end;
  {
    const CurrentRowScope current(services, row);
    if (auto failure = warm_up(run)) {
      return failure;
    }
    StoppingCriterion criterion(run.settings);
    dgx_sample_result result{};
    if (auto failure = sample(run, criterion, result)) {
      return failure;
    }
    if (!criterion.decision().criteria_met) {
      run.logger.warn(row.workload + (row.label.empty() ? "" : " (" + row.label + ")") + ": " +
                      criterion.decision().reason);
    }
    detail::add_timing(row, run.settings, run.comm.ranks().world_size, criterion, result,
                       (desc.flags & DGX_CASE_TIMING_IN_JSON_ONLY) != 0);
    const Stats& s = criterion.stats();
    const dgx_sample_stats stats{sizeof(dgx_sample_stats), s.samples, s.median, s.mean, s.min, s.max, s.stdev, s.cv};
    end = run.instance.end_case(run.index, stats);
  }
  report.rows.push_back(std::move(row));
  return end;
}

}  // namespace

CallResult measure(WorkloadInstance& instance, const RunnerSettings& settings, HostServices& services, HostComm& comm,
                   const json::Object& row_config, Report& report, CaseLog* log) {
  if (auto failure = instance.setup()) {
    return failure;
  }
  auto cases = instance.case_count();
  if (!cases) {
    return cases.error();
  }
  bool first = true;
  for (std::uint32_t c = 0; c < cases.value(); ++c) {
    const ResultRow* earlier = log != nullptr ? log->finished(c) : nullptr;
    unsigned char skip = earlier != nullptr ? 1 : 0;
    comm.broadcast(&skip, 1, 0);  // rank 0 holds the journal; every rank skips the same cases
    if (skip != 0) {
      if (earlier != nullptr) {
        report.rows.push_back(*earlier);
      }
      continue;
    }
    const CaseRun run{instance, settings, comm, services.logger(), c, cases.value(), first};
    first = false;
    if (auto failure = measure_case(run, services, row_config, report)) {
      return failure;
    }
    if (cancel_requested()) {
      return Failure{ExitCode::interrupted, "cancelled by the user"};  // the case was cut short
    }
    if (log != nullptr) {
      log->record(c, cases.value(), report.rows.back());
    }
  }
  return instance.finalize();
}

}  // namespace dgx
