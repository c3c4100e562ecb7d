// The limits a run sets on its own metrics, which the HTML report draws as lines on the charts whose axis they bound.
// The host knows no workload's keys: a limit is a key of the run's configuration with a positive value, named
//  - "<...>.budget_<unit>" or "<...>.deadline_<unit>", its suffix naming its unit (usd, days, hours): the training
//    explorers' explore.budget_usd, explore.deadline_days and explore.deadline_hours, drawn on every axis of that
//    quantity (cost against GPU count, days against cost); other keys (explore.budget_slack) set none;
//  - "<...>.slo.<metric>": a service-level objective on that metric, in the unit its rows carry it in (serving's
//    serve.slo.ttft and serve.slo.tpot, seconds), drawn only on an axis that shows that metric or one of its
//    statistics (ttft.p99).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dgx/json/json.hpp"

namespace dgx::html {

struct Limit {
  std::string label;  // "budget $500k (explore.budget_usd)"; an objective's says its value once the axis is known
  double value = 0;
  std::string unit;    // "USD", "days", "h"; empty for an objective: its metric's own unit
  std::string metric;  // an objective's metric ("ttft"); empty for a budget or a deadline
};

/// The axis a limit may be drawn on: "x" or "y", the unit it is drawn in, and the metric it shows with that metric's
/// own unit (as its rows carry it).
struct LimitAxis {
  const char* name = "y";
  std::string unit;
  std::string metric;
  std::string metric_unit;
};

/// The limit config key `key` with `value` sets, or nullopt.
std::optional<Limit> limit_of(const std::string& key, const json::Value& value);

/// The limits of a report's context ("config": every resolved key), in the configuration's order.
std::vector<Limit> limits_of(const json::Object& context);

/// Appends to `lines` each of `limits` that bounds `axis` (a budget on a USD axis, a deadline on a days axis, an
/// objective on the axis of its metric), converted to the axis' unit, as {"label", "value", "axis"}: report.js draws
/// them across the plot.
void add_limits(json::Array& lines, const std::vector<Limit>& limits, const LimitAxis& axis);

}  // namespace dgx::html
