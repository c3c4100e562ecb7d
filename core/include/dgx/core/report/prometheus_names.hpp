// Names and values in the Prometheus text exposition format 0.0.4, as Prometheus' conventions and promtool's linter
// (`promtool check metrics`) want them: metric names `dgx_<metric>_<base unit>` with the value converted to that
// unit (seconds, bytes, bytes_per_second, flops, flops_per_second, ratio for %), label names in snake_case, label
// values and HELP texts escaped. The reporter that uses them is prometheus_reporter.cpp.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace dgx {

/// A metric family's name and how a value in the metric's unit becomes a value in the name's unit.
struct PrometheusName {
  std::string name;   // "dgx_busbw_bytes_per_second"
  double factor = 1;  // value in the metric's unit x factor = the sample's value
  std::string unit;   // the unit in words, for HELP: "bytes per second"; empty for plain numbers (1, count)
};

/// The family of dgxhost metric `metric` in `unit` (docs/results-schema.md "Units"): "dgx_" + the name in snake_case
/// (dots and other characters as '_') + the base unit's suffix, unless the name already ends in it or says it
/// ("tokens_per_s_per_gpu" in tokens/s: dgx_tokens_per_second_per_gpu). Unit words in the name follow the
/// conversion (days_to_train: dgx_seconds_to_train; gpu_hours: dgx_gpu_seconds; tflops in TFLOP/s:
/// flops_per_second; pct in %: ratio). A one-letter name, and a word promtool reads as an abbreviated unit or a
/// type where it is none, is joined to "value" (compare's a and b: dgx_avalue_seconds, dgx_bvalue_seconds), and a
/// name ending as histograms, summaries and counters end (_count, _sum, _bucket, _total) gets "_value". A unit
/// outside the list keeps its values, and no suffix.
PrometheusName prometheus_name(std::string_view metric, std::string_view unit);

/// A valid label name for `key` ([a-zA-Z_][a-zA-Z0-9_]*, snake_case, never starting with "__"): "comm.placement"
/// -> "comm_placement", "maxBatch" -> "max_batch", "3d" -> "_3d"; "" -> "_".
std::string prometheus_label_name(std::string_view key);

/// `value` as a label value inside double quotes: valid UTF-8 (an invalid byte becomes U+FFFD, control characters
/// but newline and tab as printable() writes them), with backslash, double quote and newline escaped (\\, \", \n).
std::string prometheus_label_value(std::string_view value);

/// `text` for a `# HELP` line: valid UTF-8, backslash and newline escaped (\\, \n), other control characters as
/// printable() writes them.
std::string prometheus_help(std::string_view text);

/// A sample value: an integer without a decimal point, another number in the shortest form that reads back as the
/// same double; NaN, +Inf and -Inf as the format spells them.
std::string prometheus_value(double value);

}  // namespace dgx
