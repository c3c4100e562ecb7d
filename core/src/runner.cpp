#include "dgx/core/runner.hpp"

#include <cmath>

#include "dgx/core/cancellation.hpp"
#include "dgx/core/iteration_check.hpp"
#include "dgx/core/printable.hpp"
#include "dgx/core/stopping_criterion.hpp"
#include "dgx/core/text.hpp"
#include "sampling.hpp"
#include "strided.hpp"

namespace dgx {

namespace {

ParamSpec param(std::string key, ParamType type, json::Value value, std::string help, std::string unit = {}) {
  return {std::move(key), type, std::move(value), std::move(help), {}, std::move(unit), false, {}};
}

const char* timing_description(dgx_timing timing) {
  switch (timing) {
  case DGX_TIMING_DEVICE_EVENTS: return "device events recorded by the plugin around the enqueued work";
  case DGX_TIMING_PLUGIN_WALL: return "plugin's wall clock around the timed region inside run()";
  default: return "host steady_clock around run() (synchronous)";
  }
}

const char* cache_description(std::int32_t state) {
  switch (state) {
  case 1: return "hot";
  case 2: return "cold (flushed before each sample)";
  default: return "n/a";
  }
}

}  // namespace

std::vector<ParamSpec> RunnerSettings::params() {
  const RunnerSettings d;
  return {
      param("runner.warmup", ParamType::integer, static_cast<std::int64_t>(d.warmup), "warm-up samples, discarded"),
      param("runner.warmup_time", ParamType::floating, d.warmup_time, "minimum warm-up duration", "s"),
      param("runner.min_samples", ParamType::integer, static_cast<std::int64_t>(d.min_samples),
            "minimum timed samples per case"),
      param("runner.max_samples", ParamType::integer, static_cast<std::int64_t>(d.max_samples),
            "maximum timed samples per case"),
      param("runner.min_time", ParamType::floating, d.min_time, "minimum measured time per case", "s"),
      param("runner.max_time", ParamType::floating, d.max_time,
            "wall-clock limit of the timed phase of a case (and of the warm-up); it also cuts a sample in flight short "
            "when run() polls the host for cancellation",
            "s"),
      param("runner.noise", ParamType::floating, d.noise,
            "target relative standard error of the median time (0.005 = 0.5%); 0 disables"),
      param("runner.batch", ParamType::integer, static_cast<std::int64_t>(d.batch),
            "iterations per sample, timed together"),
      param("runner.cold", ParamType::boolean, d.cold, "flush caches (e.g. GPU L2) before each sample"),
  };
}

namespace {

// Range checks of runner.* that say what was given and where it came from ("runner.max_time must be a finite
// number > 0, got -inf (run.toml:3:12)").
class RangeCheck {
public:
  explicit RangeCheck(const ResolvedConfig& config) : config_(config) {}

  std::int64_t integer(const char* key) const { return config_.find(key)->value.as_int(); }
  double number(const char* key) const { return config_.find(key)->value.as_number(); }

  void require(bool ok, const char* key, const std::string& condition) {
    if (ok) return;
    const ResolvedEntry& e = *config_.find(key);
    problems_.push_back(std::string(key) + " must be " + condition + ", got " + to_toml_literal(e.value) + " (" +
                        e.where.describe() + ")");
  }
  void require_finite(const char* key, bool positive) {
    const double v = number(key);
    require(std::isfinite(v) && (positive ? v > 0 : v >= 0), key,
            positive ? "a finite number > 0" : "a finite number >= 0");
  }
  [[nodiscard]] std::optional<Failure> failure() const {
    if (problems_.empty()) return std::nullopt;
    return Failure{ExitCode::usage, text::join(problems_, "; ")};
  }

private:
  const ResolvedConfig& config_;
  std::vector<std::string> problems_;
};

}  // namespace

Expected<RunnerSettings> RunnerSettings::from(const ResolvedConfig& config) {
  RangeCheck check(config);
  const std::int64_t warmup = check.integer("runner.warmup"), min_samples = check.integer("runner.min_samples"),
                     max_samples = check.integer("runner.max_samples"), batch = check.integer("runner.batch");
  check.require(warmup >= 0, "runner.warmup", ">= 0");
  check.require(min_samples >= 1, "runner.min_samples", ">= 1");
  check.require(max_samples >= min_samples, "runner.max_samples",
                ">= runner.min_samples (" + std::to_string(min_samples) + ")");
  check.require(batch >= 1 && batch <= kMaxBatch, "runner.batch", "in 1.." + std::to_string(kMaxBatch));
  check.require_finite("runner.warmup_time", false);
  check.require_finite("runner.min_time", false);
  check.require_finite("runner.max_time", true);
  check.require_finite("runner.noise", false);
  if (auto failure = check.failure()) return *failure;
  RunnerSettings s;
  s.warmup = static_cast<std::uint64_t>(warmup);
  s.min_samples = static_cast<std::uint64_t>(min_samples);
  s.max_samples = static_cast<std::uint64_t>(max_samples);
  s.batch = static_cast<std::uint32_t>(batch);
  s.warmup_time = check.number("runner.warmup_time");
  s.min_time = check.number("runner.min_time");
  s.max_time = check.number("runner.max_time");
  s.noise = check.number("runner.noise");
  s.cold = config.find("runner.cold")->value.as_bool();
  return s;
}

json::Object workload_config(const ResolvedConfig& config) {
  json::Object out;
  for (const auto& [key, value] : config.to_json())
    if (!text::starts_with(key, "runner.") && !text::starts_with(key, "verdict.")) out.set(key, value);
  return out;
}

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

// The measured row of a case before it has numbers: the workload's configuration plus the case's own entries.
ResultRow case_row(const WorkloadInfo& workload, const dgx_case_desc& desc, const json::Object& row_config) {
  ResultRow row;
  row.workload = workload.name;
  row.plugin = workload.plugin->name;
  row.mode = ResultMode::measured;
  row.table = workload.name;
  row.label = printable(desc.label);
  row.config = row_config;
  for (std::uint32_t i = 0; i < desc.config_count; ++i) {  // measure_case checked the array
    const dgx_config_entry& e = detail::strided_element(desc.config, i);
    const std::string text = printable(e.value);
    auto value = parse_toml_value(text);
    row.config.set(e.key != nullptr ? printable(e.key) : "?", value ? value.value() : json::Value(text));
  }
  return row;
}

// A sample cut short before any could be counted: by Ctrl-C, or by runner.max_time, when the case cannot be
// measured within the limit.
Failure cut_failure(const CaseRun& run, const std::string& phase) {
  if (cancel_requested()) return Failure{ExitCode::interrupted, "cancelled by the user"};
  const WorkloadInfo& w = run.instance.workload();
  return Failure{ExitCode::run_failed,
                 w.plugin->name + ":" + w.name + ": runner.max_time (" + text::format_number(run.settings.max_time, 3) +
                     " s) ended a sample of " + phase + " before one finished: one sample of " +
                     std::to_string(run.settings.batch) +
                     " iteration(s) takes longer. Raise runner.max_time, or lower runner.batch or the case's size"};
}

dgx_sample_request first_request(const CaseRun& run, bool warmup) {
  return {sizeof(dgx_sample_request), run.index, 0, run.settings.batch, warmup ? 1 : 0, run.settings.cold ? 1 : 0};
}

// Refuses a workload whose run() ignores request.iterations (iteration_check.hpp). Its samples are warm-up
// samples, numbered from `index` on.
CallResult check_iterations(const CaseRun& run, std::uint64_t& index) {
  const CallDeadline deadline(detail::now() + run.settings.max_time);  // bounds one sample too, if run() polls
  dgx_sample_request request = first_request(run, true);
  dgx_sample_result result{};
  const IterationCheck::Timer time = [&](std::uint32_t iterations) -> Expected<double> {
    request.iterations = iterations;
    request.sample_index = index++;
    auto per_iteration = detail::take_sample(run.instance, run.comm, request, result);
    if (!per_iteration) return per_iteration.error();
    if (!per_iteration.value()) return cut_failure(run, "the iteration check");
    return *per_iteration.value() * iterations;
  };
  auto ignored = IterationCheck::run(run.settings.batch, time);
  if (!ignored) return ignored.error();
  if (!ignored.value()) return std::nullopt;
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
  if (run.check_iterations && run.settings.batch > 1)
    if (auto failure = check_iterations(run, index)) return failure;
  dgx_sample_request request = first_request(run, true);
  dgx_sample_result result{};
  const double start = detail::now();
  const CallDeadline deadline(start + run.settings.max_time);  // bounds one sample too, if run() polls
  for (std::uint64_t i = 0;; ++i) {
    const double elapsed = detail::now() - start;
    const bool done = !(i < run.settings.warmup || elapsed < run.settings.warmup_time);
    if (detail::agreed(run.comm, done || cancel_requested() || elapsed > run.settings.max_time)) break;
    request.sample_index = index++;
    auto sample = detail::take_sample(run.instance, run.comm, request, result);
    if (!sample) return sample.error();
    if (!sample.value()) {
      if (index == 1) return cut_failure(run, "the warm-up");  // no sample of this case has finished
      break;                                                   // warm enough: the timed phase has a limit of its own
    }
  }
  return std::nullopt;
}

// The timed phase: samples until the stopping criterion says so. `result` keeps the last sample's report.
CallResult sample(const CaseRun& run, StoppingCriterion& criterion, dgx_sample_result& result) {
  dgx_sample_request request = first_request(run, false);
  const double start = detail::now();
  const CallDeadline deadline(start + run.settings.max_time);  // bounds one sample too, if run() polls
  bool stop = false;
  while (!stop) {
    request.sample_index = criterion.samples().size();
    auto sample = detail::take_sample(run.instance, run.comm, request, result);
    if (!sample) return sample.error();
    if (!sample.value()) {  // cut by Ctrl-C or max_time: not counted, and the phase ends with what it has
      run.logger.end_progress();
      if (criterion.samples().empty()) return cut_failure(run, "the timed phase");
      criterion.stop_at_cut(detail::now() - start, cancel_requested());
      return std::nullopt;
    }
    stop = detail::agreed(run.comm, criterion.add(*sample.value(), detail::now() - start, cancel_requested()));
    run.logger.progress(run.instance.workload().name,
                        std::min(1.0, criterion.measured_time() / std::max(run.settings.min_time, 1e-9)),
                        "case " + std::to_string(run.index + 1) + "/" + std::to_string(run.count));
  }
  run.logger.end_progress();
  return std::nullopt;
}

// The host's timing metrics and provenance fields (docs/results-schema.md, "Measured timing metrics").
void add_timing(ResultRow& row, const CaseRun& run, const StoppingCriterion& criterion, const dgx_sample_result& result,
                bool in_json_only) {
  const Stats& stats = criterion.stats();
  for (const auto& [name, value] : {std::pair{"time.median", stats.median},
                                    {"time.mean", stats.mean},
                                    {"time.min", stats.min},
                                    {"time.max", stats.max},
                                    {"time.stdev", stats.stdev}})
    row.add_metric({name, value, "s", in_json_only, {}});
  row.add_metric({"time.cv", stats.cv * 100.0, "%", in_json_only, {}});
  row.add_metric({"samples", static_cast<double>(stats.samples), "count", in_json_only, {}});
  row.add_field({"timing", timing_description(result.timing), true});
  row.add_field({"cache", cache_description(result.cache_state), true});
  row.add_field({"iterations_per_sample", std::to_string(run.settings.batch), true});
  row.add_field({"warmup", std::to_string(run.settings.warmup) + " samples", true});
  row.add_field({"stop", criterion.decision().reason, true});
  const int world = run.comm.ranks().world_size;
  if (world > 1) row.add_field({"ranks", std::to_string(world) + " (barrier per sample; slowest rank's time)", true});
  row.sample_times = criterion.samples();
}

// One case: begin_case, warm-up, timed samples, the row, end_case. The row is kept even when end_case fails
// (a correctness check): the numbers were measured.
CallResult measure_case(const CaseRun& run, HostServices& services, const json::Object& row_config, Report& report) {
  dgx_case_desc desc{};
  if (auto failure = run.instance.begin_case(run.index, desc)) return failure;
  if (!detail::readable_array(desc.config, desc.config_count)) {
    const WorkloadInfo& w = run.instance.workload();
    return Failure{ExitCode::run_failed, w.plugin->name + ":" + w.name +
                                             ": begin_case returned a case whose config "
                                             "array is NULL or has a bad stride"};
  }
  ResultRow row = case_row(run.instance.workload(), desc, row_config);
  run.instance.set_case_label(row.label);
  CallResult end;
  {
    const CurrentRowScope current(services, row);
    if (auto failure = warm_up(run)) return failure;
    StoppingCriterion criterion(run.settings);
    dgx_sample_result result{};
    if (auto failure = sample(run, criterion, result)) return failure;
    if (!criterion.decision().criteria_met)
      run.logger.warn(row.workload + (row.label.empty() ? "" : " (" + row.label + ")") + ": " +
                      criterion.decision().reason);
    add_timing(row, run, criterion, result, (desc.flags & DGX_CASE_TIMING_IN_JSON_ONLY) != 0);
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
  if (auto failure = instance.setup()) return failure;
  auto cases = instance.case_count();
  if (!cases) return cases.error();
  bool first = true;
  for (std::uint32_t c = 0; c < cases.value(); ++c) {
    const ResultRow* earlier = log != nullptr ? log->finished(c) : nullptr;
    unsigned char skip = earlier != nullptr ? 1 : 0;
    comm.broadcast(&skip, 1, 0);  // rank 0 holds the journal; every rank skips the same cases
    if (skip != 0) {
      if (earlier != nullptr) report.rows.push_back(*earlier);
      continue;
    }
    const CaseRun run{instance, settings, comm, services.logger(), c, cases.value(), first};
    first = false;
    if (auto failure = measure_case(run, services, row_config, report)) return failure;
    if (cancel_requested()) return Failure{ExitCode::interrupted, "cancelled by the user"};  // the case was cut short
    if (log != nullptr) log->record(c, cases.value(), report.rows.back());
  }
  return instance.finalize();
}

}  // namespace dgx
