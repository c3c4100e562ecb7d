// ParsedRun's and ImportedRow's own operations.
#include "parsed_run.hpp"

#include <algorithm>

namespace dgx::logs {

void ParsedRun::set(const std::string& key, json::Value value, int line) {
  config.set(key, std::move(value));
  line_of[key] = line;
}

std::optional<Failure> ParsedRun::agree(const std::string& key, const json::Value& value, int line,
                                        const std::string& origin) {
  const json::Value* before = config.find(key);
  if (before != nullptr && !(*before == value)) {
    return bad_input(origin, line,
                     "two runs in one file: " + key + " is " + json::write(*before, 0) + " at line " +
                         std::to_string(line_of[key]) + " and " + json::write(value, 0) +
                         " here; import one run per file");
  }
  if (before == nullptr) {
    set(key, value, line);
  }
  return std::nullopt;
}

WarmupRule ParsedRun::warmup_rule() const {
  WarmupRule rule;
  rule.first_step = steps.empty() ? 0 : steps.front();
  rule.warmup = user_warmup;
  rule.warm_at_start = warm_at_start;
  return rule;
}

void ParsedRun::add_latency(const std::string& name, std::optional<double> median_ms, std::optional<double> p90_ms,
                            std::optional<double> p99_ms, std::optional<double> mean_ms) {
  if (median_ms) {
    metrics.push_back(metric(name, *median_ms * 1e-3, "s"));
  }
  if (p90_ms) {
    metrics.push_back(metric(name + ".p90", *p90_ms * 1e-3, "s"));
  }
  if (p99_ms) {
    metrics.push_back(metric(name + ".p99", *p99_ms * 1e-3, "s"));
  }
  if (mean_ms) {
    metrics.push_back(metric(name + ".mean", *mean_ms * 1e-3, "s"));
  }
}

void ImportedRow::add_metric(Metric m) {
  auto same = std::find_if(metrics.begin(), metrics.end(), [&](const Metric& x) { return x.name == m.name; });
  if (same != metrics.end()) {
    *same = std::move(m);
  } else {
    metrics.push_back(std::move(m));
  }
}

void ImportedRow::add_field(Field f) {
  auto same = std::find_if(fields.begin(), fields.end(), [&](const Field& x) { return x.key == f.key; });
  if (same != fields.end()) {
    *same = std::move(f);
  } else {
    fields.push_back(std::move(f));
  }
}

const Metric* ImportedRow::find_metric(std::string_view name) const {
  auto it = std::find_if(metrics.begin(), metrics.end(), [&](const Metric& m) { return m.name == name; });
  return it == metrics.end() ? nullptr : &*it;
}

}  // namespace dgx::logs
