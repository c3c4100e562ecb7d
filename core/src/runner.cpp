#include "dgx/core/runner.hpp"

#include <chrono>
#include <cmath>

#include "dgx/core/cancellation.hpp"
#include "dgx/core/text.hpp"
#include "strided.hpp"

namespace dgx {

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

ParamSpec param(std::string key, ParamType type, json::Value value, std::string help, std::string unit = {}) {
  return {std::move(key), type, std::move(value), std::move(help), {}, std::move(unit), false, {}};
}

std::string percent(double fraction) { return text::format_number(fraction * 100.0, 3) + "%"; }

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

dgx_sample_stats to_c(const Stats& s) {
  return {sizeof(dgx_sample_stats), s.samples, s.median, s.mean, s.min, s.max, s.stdev, s.cv};
}

// One call of run(); returns seconds per iteration (the slowest rank's), or the failure.
Expected<double> take_sample(WorkloadInstance& instance, HostComm& comm, const dgx_sample_request& request,
                             dgx_sample_result& result) {
  if (comm.ranks().world_size > 1) comm.barrier();
  result = {sizeof(dgx_sample_result), DGX_TIMING_HOST_WALL, -1.0, 0};
  const double start = now();
  if (auto failure = instance.run(request, result)) return *failure;
  const double host_seconds = now() - start;
  double seconds = host_seconds;
  if (result.timing != DGX_TIMING_HOST_WALL) {
    if (!(result.seconds > 0) || !std::isfinite(result.seconds))
      return Failure{ExitCode::run_failed, instance.workload().plugin->name + ":" + instance.workload().name +
                                               ": run() reported its own timing but no positive time (seconds = " +
                                               text::format_number(result.seconds) + ")"};
    seconds = result.seconds;
  }
  double per_iteration = seconds / request.iterations;
  if (comm.ranks().world_size > 1) comm.all_reduce(&per_iteration, 1, DGX_REDUCE_MAX);
  return per_iteration;
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
      param("runner.max_time", ParamType::floating, d.max_time, "wall-clock limit of the timed phase of a case", "s"),
      param("runner.noise", ParamType::floating, d.noise,
            "target relative standard error of the median time (0.005 = 0.5%); 0 disables"),
      param("runner.batch", ParamType::integer, static_cast<std::int64_t>(d.batch),
            "iterations per sample, timed together"),
      param("runner.cold", ParamType::boolean, d.cold, "flush caches (e.g. GPU L2) before each sample"),
  };
}

Expected<RunnerSettings> RunnerSettings::from(const ResolvedConfig& config) {
  auto number = [&](const char* key) { return config.find(key)->value.as_number(); };
  auto integer = [&](const char* key) { return config.find(key)->value.as_int(); };
  RunnerSettings s;
  std::vector<std::string> problems;
  auto require = [&](bool ok, const std::string& message) {
    if (!ok) problems.push_back(message);
  };
  const std::int64_t warmup = integer("runner.warmup"), min_samples = integer("runner.min_samples"),
                     max_samples = integer("runner.max_samples"), batch = integer("runner.batch");
  require(warmup >= 0, "runner.warmup must be >= 0, got " + std::to_string(warmup));
  require(min_samples >= 1, "runner.min_samples must be >= 1, got " + std::to_string(min_samples));
  require(max_samples >= min_samples, "runner.max_samples (" + std::to_string(max_samples) +
                                          ") must be >= runner.min_samples (" + std::to_string(min_samples) + ")");
  require(batch >= 1 && batch <= 1'000'000'000, "runner.batch must be in 1..1e9, got " + std::to_string(batch));
  s.warmup_time = number("runner.warmup_time");
  s.min_time = number("runner.min_time");
  s.max_time = number("runner.max_time");
  s.noise = number("runner.noise");
  require(s.warmup_time >= 0, "runner.warmup_time must be >= 0");
  require(s.min_time >= 0, "runner.min_time must be >= 0");
  require(s.max_time > 0, "runner.max_time must be > 0");
  require(s.noise >= 0, "runner.noise must be >= 0");
  if (!problems.empty()) return Failure{ExitCode::usage, text::join(problems, "; ")};
  s.warmup = static_cast<std::uint64_t>(warmup);
  s.min_samples = static_cast<std::uint64_t>(min_samples);
  s.max_samples = static_cast<std::uint64_t>(max_samples);
  s.batch = static_cast<std::uint32_t>(batch);
  s.cold = config.find("runner.cold")->value.as_bool();
  return s;
}

json::Object workload_config(const ResolvedConfig& config) {
  json::Object out;
  for (const auto& [key, value] : config.to_json())
    if (!text::starts_with(key, "runner.")) out.set(key, value);
  return out;
}

StopDecision should_stop(const RunnerSettings& s, const Stats& stats, double measured_time, double wall_time,
                         bool cancelled) {
  const double noise = stats.median_noise();
  const bool enough_samples = stats.samples >= s.min_samples;
  const bool enough_time = measured_time >= s.min_time;
  const bool quiet = s.noise <= 0 || noise <= s.noise;
  std::vector<std::string> unmet;
  if (!enough_samples)
    unmet.push_back("min_samples (" + std::to_string(stats.samples) + " of " + std::to_string(s.min_samples) + ")");
  if (!enough_time)
    unmet.push_back("min_time (" + text::format_number(measured_time, 3) + " of " + text::format_number(s.min_time, 3) +
                    " s)");
  if (!quiet) unmet.push_back("noise (" + percent(noise) + " > " + percent(s.noise) + ")");

  if (unmet.empty()) {
    std::string reason = "criteria met: " + std::to_string(stats.samples) + " samples, " +
                         text::format_number(measured_time, 3) + " s measured";
    if (s.noise > 0) reason += ", noise " + percent(noise) + " <= " + percent(s.noise);
    return {true, true, reason};
  }
  const std::string missing = "; unmet: " + text::join(unmet, ", ");
  if (cancelled) return {true, false, "cancelled by the user" + missing};
  if (stats.samples >= s.max_samples)
    return {true, false, "max_samples " + std::to_string(s.max_samples) + " reached" + missing};
  if (wall_time >= s.max_time)
    return {true, false, "max_time " + text::format_number(s.max_time, 3) + " s reached" + missing};
  return {false, false, {}};
}

CallResult measure(WorkloadInstance& instance, const RunnerSettings& settings, HostServices& services, HostComm& comm,
                   const json::Object& row_config, Report& report) {
  const WorkloadInfo& workload = instance.workload();
  const Logger& logger = services.logger();
  if (auto failure = instance.setup()) return failure;
  auto cases = instance.case_count();
  if (!cases) return cases.error();

  for (std::uint32_t c = 0; c < cases.value(); ++c) {
    dgx_case_desc desc{};
    if (auto failure = instance.begin_case(c, desc)) return failure;
    ResultRow row;
    row.workload = workload.name;
    row.plugin = workload.plugin->name;
    row.mode = ResultMode::measured;
    row.table = workload.name;
    row.label = desc.label != nullptr ? desc.label : "";
    row.config = row_config;
    for (std::uint32_t i = 0; i < desc.config_count; ++i) {
      const dgx_config_entry& e = detail::strided_element(desc.config, i);
      auto value = parse_toml_value(e.value != nullptr ? e.value : "");
      row.config.set(e.key != nullptr ? e.key : "?", value ? value.value() : json::Value(e.value));
    }
    services.set_current_row(&row);

    dgx_sample_request request{sizeof(dgx_sample_request), c, 0, settings.batch, 1, settings.cold ? 1 : 0};
    dgx_sample_result result{};
    const double warmup_start = now();
    for (std::uint64_t i = 0; i < settings.warmup || now() - warmup_start < settings.warmup_time; ++i) {
      if (cancel_requested() || now() - warmup_start > settings.max_time) break;
      request.sample_index = i;
      auto sample = take_sample(instance, comm, request, result);
      if (!sample) return sample.error();
    }

    request.warmup = 0;
    std::vector<double> samples;
    Stats stats;
    StopDecision decision;
    double measured = 0;
    std::size_t next_check = 1;
    const double start = now();
    while (!decision.stop) {
      request.sample_index = samples.size();
      auto sample = take_sample(instance, comm, request, result);
      if (!sample) return sample.error();
      samples.push_back(sample.value());
      measured += sample.value() * settings.batch;
      // Statistics cost O(n log n): evaluate the criteria at geometrically spaced sample counts, and at once
      // when a hard limit is reached.
      const double wall = now() - start;
      const bool limit = wall >= settings.max_time || samples.size() >= settings.max_samples || cancel_requested();
      if (samples.size() < next_check && !limit) continue;
      next_check = std::max(samples.size() + 1, samples.size() * 21 / 20);
      stats = compute_stats(samples);
      decision = should_stop(settings, stats, measured, wall, cancel_requested());
      logger.progress(workload.name, std::min(1.0, measured / std::max(settings.min_time, 1e-9)),
                      "case " + std::to_string(c + 1) + "/" + std::to_string(cases.value()));
    }
    logger.end_progress();
    if (!decision.criteria_met)
      logger.warn(workload.name + (row.label.empty() ? "" : " (" + row.label + ")") + ": " + decision.reason);

    const bool in_json_only = (desc.flags & DGX_CASE_TIMING_IN_JSON_ONLY) != 0;
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
    row.add_field({"iterations_per_sample", std::to_string(settings.batch), true});
    row.add_field({"warmup", std::to_string(settings.warmup) + " samples", true});
    row.add_field({"stop", decision.reason, true});
    if (comm.ranks().world_size > 1)
      row.add_field(
          {"ranks", std::to_string(comm.ranks().world_size) + " (barrier per sample; slowest rank's time)", true});
    row.sample_times = samples;

    const dgx_sample_stats c_stats = to_c(stats);
    CallResult end = instance.end_case(c, c_stats);
    services.set_current_row(nullptr);
    report.rows.push_back(std::move(row));  // kept even when the check failed: the numbers were measured
    if (end) return end;
    if (cancel_requested()) return Failure{ExitCode::interrupted, "cancelled by the user"};
  }
  return instance.finalize();
}

}  // namespace dgx
