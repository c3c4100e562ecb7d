// The units a metric may carry (dgx_metric::unit). dgxhost refuses a metric in any other unit and fails the run
// with a message naming the plugin, the metric and the unit, so that a typo or an invented unit never reaches a
// report looking like a number in a known one. docs/results-schema.md ("Units") holds the same list.
//
//   unit       meaning                               prefixed forms
//   s          seconds                               ms, us (or µs), ns, ps
//   B          bytes                                 kB (or KB), MB, GB, TB, PB, EB; KiB, MiB, GiB, TiB, PiB, EiB
//   B/s        bytes per second                      the same prefixes: GB/s, GiB/s, ...
//   FLOP       floating-point operations             kFLOP, MFLOP, GFLOP, TFLOP, PFLOP, EFLOP
//   FLOP/s     floating-point operations per second  the same prefixes: TFLOP/s, ...
//   tokens/s   tokens per second                     ktokens/s, Mtokens/s, ...
//   USD        US dollars                            none
//   %          percent                               none
//   1          a dimensionless number (a ratio)      none
//   count      a number of things (samples, ranks)   none
//   h          hours (time to fine-tune)             none
//   days       days (time to train)                  none
//   GPU-h      GPU hours                             none
#pragma once

#include <array>
#include <initializer_list>
#include <string>
#include <string_view>

namespace dgx::sdk {

/// How a base unit may be prefixed.
struct UnitRule {
  std::string_view base;
  bool multiples;  // k (K for bytes), M, G, T, P, E
  bool binary;     // Ki, Mi, Gi, Ti, Pi, Ei
  bool fractions;  // m, u (µ), n, p
};

/// The accepted units and their prefixes. A function and an internal-linkage constant, not an inline variable, which
/// a plugin built with default visibility would export and share with every other such plugin (see error.hpp).
constexpr std::array<UnitRule, 16> unit_rules() {
  return {{
      {"s", false, false, true},
      {"B", true, true, false},
      {"B/s", true, true, false},
      {"FLOP", true, false, false},
      {"FLOP/s", true, false, false},
      {"tokens/s", true, false, false},
      {"USD", false, false, false},
      {"%", false, false, false},
      {"1", false, false, false},
      {"count", false, false, false},
      {"h", false, false, false},
      {"days", false, false, false},
      {"GPU-h", false, false, false},
      {"min", false, false, false},
      {"samples/s", true, false, false},
      {"requests/s", true, false, false},
  }};
}
/// unit_rules() as a constant (one copy per translation unit).
constexpr std::array<UnitRule, 16> kUnits = unit_rules();

namespace detail {

inline bool has_prefix(std::string_view unit, std::string_view base, std::initializer_list<std::string_view> set) {
  for (const std::string_view prefix : set) {
    if (unit.size() == prefix.size() + base.size() && unit.substr(0, prefix.size()) == prefix &&
        unit.substr(prefix.size()) == base) {
      return true;
    }
  }
  return false;
}

}  // namespace detail

/// Whether `unit` is one of unit_rules(), plain or with a prefix its rule allows ("GB/s", "TFLOP/s", "GiB", "us").
inline bool is_known_unit(std::string_view unit) {
  for (const UnitRule& rule : unit_rules()) {
    if (unit == rule.base) {
      return true;
    }
    const bool bytes = rule.base.front() == 'B';
    if (rule.multiples && detail::has_prefix(unit, rule.base, {"k", "M", "G", "T", "P", "E"})) {
      return true;
    }
    if (rule.multiples && bytes && detail::has_prefix(unit, rule.base, {"K"})) {
      return true;
    }
    if (rule.binary && detail::has_prefix(unit, rule.base, {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"})) {
      return true;
    }
    if (rule.fractions && detail::has_prefix(unit, rule.base, {"m", "u", "\u00b5", "n", "p"})) {
      return true;
    }
  }
  return false;
}

/// The accepted units in one line, for messages.
inline std::string known_units() {
  std::string out;
  for (const UnitRule& rule : unit_rules()) {
    out += (out.empty() ? "" : ", ") + std::string(rule.base);
  }
  return out + " (s with m, u, n, p; B, B/s, FLOP, FLOP/s and tokens/s with k, M, G, T, P, E; bytes also with Ki, "
               "Mi, Gi, Ti, Pi, Ei)";
}

}  // namespace dgx::sdk
