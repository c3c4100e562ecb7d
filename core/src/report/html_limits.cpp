#include "html_limits.hpp"

#include <array>
#include <string_view>
#include <utility>

#include "dgx/core/support/quantity.hpp"
#include "dgx/core/support/text.hpp"

namespace dgx::html {

namespace {

// "20", "12.5": the number as a person would give it (format_number writes "20.00").
std::string plain(double v) {
  std::string s = text::format_number(v, 4);
  if (s.find('.') != std::string::npos && s.find('e') == std::string::npos) {
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') {
      s.pop_back();
    }
  }
  return s;
}

}  // namespace

std::optional<Limit> limit_of(const std::string& key, const json::Value& value) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 3> kUnits{
      {{"usd", "USD"}, {"days", "days"}, {"hours", "h"}}};
  if (!value.is_number() || !(value.as_number() > 0)) {
    return std::nullopt;  // 0: no limit
  }
  const std::string last = key.substr(key.rfind('.') + 1);  // npos + 1: the whole key
  if (const std::size_t slo = key.rfind(".slo."); slo != std::string::npos && slo + 5 + last.size() == key.size()) {
    return Limit{key, value.as_number(), "", last};
  }
  const std::size_t cut = last.find('_');
  if (cut == std::string::npos) {
    return std::nullopt;
  }
  const std::string what = last.substr(0, cut);
  const std::string suffix = last.substr(cut + 1);
  if (what != "budget" && what != "deadline") {
    return std::nullopt;
  }
  for (const auto& [name, unit] : kUnits) {
    if (suffix == name) {
      const double v = value.as_number();
      const std::string shown = unit == "USD" ? text::usd(v) : plain(v) + " " + std::string(name);
      return Limit{what + " " + shown + " (" + key + ")", v, std::string(unit), {}};
    }
  }
  return std::nullopt;
}

std::vector<Limit> limits_of(const json::Object& context) {
  std::vector<Limit> out;
  const json::Value* config = context.find("config");
  if (config == nullptr || !config->is_object()) {
    return out;
  }
  for (const auto& [key, value] : config->as_object()) {
    if (auto limit = limit_of(key, value)) {
      out.push_back(std::move(*limit));
    }
  }
  return out;
}

void add_limits(json::Array& lines, const std::vector<Limit>& limits, const LimitAxis& axis) {
  for (const Limit& l : limits) {
    const bool objective = !l.metric.empty();
    // An objective on ttft bounds the axis of ttft and of each of its statistics (ttft.p99).
    const bool its_axis = axis.metric == l.metric || axis.metric.rfind(l.metric + ".", 0) == 0;
    if (axis.unit.empty() || (objective && !its_axis)) {
      continue;
    }
    if (const auto v = convert(l.value, objective ? axis.metric_unit : l.unit, axis.unit)) {
      json::Object line;
      // An objective says its value in the axis' unit: "SLO 200 ms (serve.slo.ttft)".
      line.set("label", objective ? "SLO " + plain(*v) + " " + axis.unit + " (" + l.label + ")" : l.label);
      line.set("value", *v);
      line.set("axis", axis.name);
      lines.push_back(std::move(line));
    }
  }
}

}  // namespace dgx::html
