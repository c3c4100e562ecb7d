#include "dgx/core/support/quantity.hpp"

#include <array>
#include <cmath>
#include <utility>

#include "dgx/core/support/text.hpp"

namespace dgx {

namespace {

using Prefix = std::pair<std::string_view, double>;

constexpr std::array<Prefix, 7> kMultiples{
    {{"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}, {"E", 1e18}}};
constexpr std::array<Prefix, 6> kBinary{{{"Ki", 1024.0},
                                         {"Mi", 1048576.0},
                                         {"Gi", 1073741824.0},
                                         {"Ti", 1099511627776.0},
                                         {"Pi", 1125899906842624.0},
                                         {"Ei", 1152921504606846976.0}}};
constexpr std::array<Prefix, 5> kFractions{{{"m", 1e-3}, {"u", 1e-6}, {"\u00b5", 1e-6}, {"n", 1e-9}, {"p", 1e-12}}};
constexpr std::array<std::string_view, 6> kPlain{"USD", "1", "count", "h", "days", "GPU-h"};

template <std::size_t N>
std::optional<Quantity> with_prefix(std::string_view unit, std::string_view base, const std::array<Prefix, N>& set) {
  for (const auto& [prefix, factor] : set) {
    if (unit.size() == prefix.size() + base.size() && unit.starts_with(prefix) && unit.ends_with(base)) {
      return Quantity{std::string(base), factor};
    }
  }
  return std::nullopt;
}

bool ends_with_word(std::string_view name, std::string_view word) {
  return name == word ||
         (name.size() > word.size() && name.ends_with(word) && name[name.size() - word.size() - 1] == '.');
}

}  // namespace

std::optional<Quantity> parse_unit(std::string_view unit) {
  if (unit == "%") {
    return Quantity{"1", 0.01};
  }
  for (const std::string_view base :
       {std::string_view("s"), std::string_view("B"), std::string_view("B/s"), std::string_view("FLOP"),
        std::string_view("FLOP/s"), std::string_view("tokens/s")}) {
    if (unit == base) {
      return Quantity{std::string(base), 1};
    }
  }
  for (const std::string_view plain : kPlain) {
    if (unit == plain) {
      return Quantity{std::string(plain), 1};
    }
  }
  if (auto q = with_prefix(unit, "s", kFractions)) {
    return q;
  }
  for (const std::string_view base : {std::string_view("B/s"), std::string_view("B"), std::string_view("FLOP/s"),
                                      std::string_view("FLOP"), std::string_view("tokens/s")}) {
    if (auto q = with_prefix(unit, base, kMultiples)) {
      return q;
    }
    if (base.front() == 'B') {
      if (auto q = with_prefix(unit, base, kBinary)) {
        return q;
      }
    }
  }
  return std::nullopt;
}

std::optional<double> convert(double value, std::string_view from, std::string_view to) {
  const auto a = parse_unit(from);
  const auto b = parse_unit(to);
  if (!a || !b || a->base != b->base) {
    return std::nullopt;
  }
  return value * a->factor / b->factor;
}

std::string format_quantity(double value, std::string_view unit) {
  const auto q = parse_unit(unit);
  if (!q || !std::isfinite(value) || value == 0 || (q->base != "s" && q->base != "B" && q->base != "B/s")) {
    return text::format_number(value, 4) + (unit == "1" ? "" : unit == "%" ? "%" : " " + std::string(unit));
  }
  const double base = value * q->factor;
  const double magnitude = std::abs(base);
  static constexpr std::array<Prefix, 4> kSeconds{{{"", 1}, {"m", 1e-3}, {"u", 1e-6}, {"n", 1e-9}}};
  static constexpr std::array<Prefix, 5> kDecimal{{{"T", 1e12}, {"G", 1e9}, {"M", 1e6}, {"k", 1e3}, {"", 1}}};
  const auto pick = [&](const auto& prefixes) {
    for (const auto& [prefix, factor] : prefixes) {
      if (magnitude >= factor) {
        return Prefix{prefix, factor};
      }
    }
    return prefixes.back();
  };
  const Prefix p = q->base == "s" ? pick(kSeconds) : pick(kDecimal);
  return text::format_number(base / p.second, 4) + " " + std::string(p.first) + q->base;
}

Better better_direction(std::string_view metric, std::string_view unit) {
  const auto q = parse_unit(unit);
  if (!q) {
    return Better::none;
  }
  if (q->base == "s" || q->base == "USD" || q->base == "h" || q->base == "days" || q->base == "GPU-h") {
    return Better::lower;
  }
  if (q->base == "B/s" || q->base == "FLOP/s" || q->base == "tokens/s") {
    return Better::higher;
  }
  if (q->base == "1") {
    // Fractions of a peak and ratios to a reference are better higher; spreads (time.cv) lower.
    if (ends_with_word(metric, "cv")) {
      return Better::lower;
    }
    if (ends_with_word(metric, "mfu") || ends_with_word(metric, "peak_pct") || ends_with_word(metric, "peak") ||
        ends_with_word(metric, "mbu") || metric == "ratio_to_reference") {
      return Better::higher;
    }
  }
  return Better::none;
}

std::string_view to_string(Better better) {
  switch (better) {
  case Better::higher: return "higher is better";
  case Better::lower: return "lower is better";
  case Better::none: break;
  }
  return "not judged";
}

std::optional<double> goodness_ratio(Better better, double value, double reference) {
  if (better == Better::none || !std::isfinite(value) || !std::isfinite(reference)) {
    return std::nullopt;
  }
  if (better == Better::higher) {
    return reference != 0 ? std::optional(value / reference) : std::nullopt;
  }
  return value != 0 ? std::optional(reference / value) : std::nullopt;
}

}  // namespace dgx
