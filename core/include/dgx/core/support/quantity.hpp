// Metric units as quantities: which base unit a unit measures and by what factor ("GB/s" is 1e9 "B/s", "%" is
// 0.01 of "1"), and which direction of a metric is better. Comparisons (--baseline, dgxhost compare) convert both
// sides to one unit before they divide, and say which way is better in their output.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace dgx {

struct Quantity {
  std::string base;   // "s", "B", "B/s", "FLOP", "FLOP/s", "tokens/s", "1", "USD", "count", "days", "GPU-h"
  double factor = 1;  // value in the unit x factor = value in the base unit
};

/// The base and factor of a unit of docs/results-schema.md ("Units"); "%" is 0.01 of "1". nullopt for others.
std::optional<Quantity> parse_unit(std::string_view unit);

/// `value` in `from` expressed in `to`; nullopt when the two measure different quantities.
std::optional<double> convert(double value, std::string_view from, std::string_view to);

/// A value with its unit for a sentence, seconds and bytes scaled to a readable prefix: "1.100 ms", "4.30 TB/s",
/// "1564 tokens/s".
std::string format_quantity(double value, std::string_view unit);

/// Which direction of a metric is better: time, cost and spread lower; bandwidth, throughput and utilisation
/// higher; counts, sizes and memory neither (a comparison does not judge them).
enum class Better { higher, lower, none };
Better better_direction(std::string_view metric, std::string_view unit);

/// "higher is better", "lower is better", "not judged".
std::string_view to_string(Better better);

/// The ratio that reads "above 1 is better" for a metric of direction `better`: measured / reference when
/// higher is better, reference / measured when lower is better. nullopt when not judged or not finite.
std::optional<double> goodness_ratio(Better better, double value, double reference);

}  // namespace dgx
