// The limits a run sets on its own metrics, a cost budget and a deadline, which the HTML report draws as lines on
// the charts whose axis they bound (cost against GPU count, days against cost). The host knows no workload's keys:
// a limit is a key of the run's configuration named "<...>.budget_<unit>" or "<...>.deadline_<unit>" with a positive
// value, its suffix naming its unit (usd, days, hours): the training explorers' explore.budget_usd,
// explore.deadline_days and explore.deadline_hours. Other keys (explore.budget_slack) set none.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dgx/json/json.hpp"

namespace dgx::html {

struct Limit {
  std::string label;  // "budget $500k (explore.budget_usd)"
  double value = 0;
  std::string unit;  // "USD", "days", "h"
};

/// The limit config key `key` with `value` sets, or nullopt.
std::optional<Limit> limit_of(const std::string& key, const json::Value& value);

/// The limits of a report's context ("config": every resolved key), in the configuration's order.
std::vector<Limit> limits_of(const json::Object& context);

/// Appends to `lines` each of `limits` of the quantity `unit` measures (a budget on a USD axis, a deadline on a days
/// axis), converted to `unit`, as {"label", "value", "axis": `axis`}: report.js draws them across the plot.
void add_limits(json::Array& lines, const std::vector<Limit>& limits, const std::string& unit, const char* axis);

}  // namespace dgx::html
