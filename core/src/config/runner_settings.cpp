#include "dgx/core/config/runner_settings.hpp"

#include <cmath>

#include "dgx/core/config/toml_reader.hpp"
#include "dgx/core/support/text.hpp"

namespace dgx {

namespace {

ParamSpec param(std::string key, ParamType type, json::Value value, std::string help, std::string unit = {}) {
  return {std::move(key), type, std::move(value), std::move(help), {}, std::move(unit), false, {}};
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
    if (ok) {
      return;
    }
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
    if (problems_.empty()) {
      return std::nullopt;
    }
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
  if (auto failure = check.failure()) {
    return *failure;
  }
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
  for (const auto& [key, value] : config.to_json()) {
    if (!text::starts_with(key, "runner.") && !text::starts_with(key, "verdict.")) {
      out.set(key, value);
    }
  }
  return out;
}

}  // namespace dgx
