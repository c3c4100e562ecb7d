// Prometheus names: the base units of https://prometheus.io/docs/practices/naming/ and the words promtool's
// linter (client_golang's promlint, as `promtool check metrics` runs it) refuses in a metric name.
#include "dgx/core/report/prometheus_names.hpp"

#include <array>
#include <cctype>
#include <cmath>
#include <vector>

#include "dgx/core/support/printable.hpp"
#include "dgx/core/support/quantity.hpp"
#include "dgx/core/support/text.hpp"
#include "dgx/json/json.hpp"

namespace dgx {

namespace {

// A dgxhost base unit (quantity.hpp) in Prometheus terms: the name's suffix, the factor to it, the unit in words.
struct BaseUnit {
  std::string_view base;
  std::string_view suffix;
  double factor;
  std::string_view words;
};

constexpr std::array<BaseUnit, 11> kBaseUnits{{
    {"s", "seconds", 1, "seconds"},
    {"h", "seconds", 3600, "seconds"},
    {"days", "seconds", 86400, "seconds"},
    {"GPU-h", "gpu_seconds", 3600, "GPU seconds"},
    {"B", "bytes", 1, "bytes"},
    {"B/s", "bytes_per_second", 1, "bytes per second"},
    {"FLOP", "flops", 1, "floating-point operations"},
    {"FLOP/s", "flops_per_second", 1, "floating-point operations per second"},
    {"tokens/s", "tokens_per_second", 1, "tokens per second"},
    {"USD", "usd", 1, "US dollars"},
    {"count", "", 1, ""},
}};

// What the linter reads as an abbreviated unit, a unit that is not a base unit, or a metric type.
constexpr std::array<std::string_view, 14> kAbbreviations{"s",  "ms", "us", "ns", "sec", "b", "kb",
                                                          "mb", "gb", "tb", "pb", "m",   "h", "d"};
constexpr std::array<std::string_view, 10> kNonBaseWords{"minutes", "hours",   "days",      "weeks",   "bits",
                                                         "gauge",   "counter", "histogram", "summary", "fahrenheit"};
constexpr std::array<std::string_view, 18> kPrefixes{"pico", "nano",  "micro", "milli", "centi", "deci",
                                                     "deca", "hecto", "kilo",  "kibi",  "mega",  "mebi",
                                                     "giga", "gibi",  "tera",  "tebi",  "peta",  "pebi"};
constexpr std::array<std::string_view, 10> kBases{"amperes", "bytes",  "celsius", "grams",   "joules",
                                                  "kelvin",  "meters", "metres",  "seconds", "volts"};
// Words of a name that denote a time, a size or a FLOP count in some unit: they follow the value's conversion.
constexpr std::array<std::string_view, 24> kTimeWords{
    "s",      "sec",     "secs",        "second",       "seconds",     "ms",           "us",         "ns",
    "msec",   "usec",    "millisecond", "milliseconds", "microsecond", "microseconds", "nanosecond", "nanoseconds",
    "minute", "minutes", "hour",        "hours",        "h",           "day",          "days",       "d"};
constexpr std::array<std::string_view, 10> kByteAbbreviations{"b",  "kb",  "mb",  "gb",  "tb",
                                                              "pb", "kib", "mib", "gib", "tib"};
constexpr std::array<std::string_view, 6> kFlopPrefixes{"k", "m", "g", "t", "p", "e"};

template <std::size_t N> bool one_of(std::string_view word, const std::array<std::string_view, N>& words) {
  for (const std::string_view w : words) {
    if (word == w) {
      return true;
    }
  }
  return false;
}

bool refused_by_linter(std::string_view word) {
  if (one_of(word, kAbbreviations) || one_of(word, kNonBaseWords)) {
    return true;
  }
  for (const std::string_view prefix : kPrefixes) {
    if (word.starts_with(prefix) && one_of(word.substr(prefix.size()), kBases)) {
      return true;
    }
  }
  return false;
}

// "kflops".."eflops" or "kflop".."eflop": a FLOP count or rate with a prefix.
bool prefixed_flops(std::string_view word) {
  return word.size() >= 5 && one_of(word.substr(0, 1), kFlopPrefixes) &&
         (word.substr(1) == "flops" || word.substr(1) == "flop");
}

// snake_case of anything: camelCase split, lower case, every run of other characters one '_', none at the ends.
std::string snake_case(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (std::isupper(c) != 0 && i > 0 &&
        (std::islower(static_cast<unsigned char>(s[i - 1])) != 0 ||
         std::isdigit(static_cast<unsigned char>(s[i - 1])) != 0)) {
      out += '_';
    }
    const bool keep = c < 0x80 && std::isalnum(c) != 0;
    const char next = keep ? static_cast<char>(std::tolower(c)) : '_';
    if (next != '_' || (!out.empty() && out.back() != '_')) {
      out += next;
    }
  }
  while (!out.empty() && out.back() == '_') {
    out.pop_back();
  }
  return out;
}

enum class Kind { time, bytes, flops, flop_rate, percent, other };

Kind kind_of(std::string_view unit, std::string_view base) {
  if (unit == "%") {
    return Kind::percent;
  }
  if (base == "s" || base == "h" || base == "days" || base == "GPU-h") {
    return Kind::time;
  }
  if (base == "B" || base == "B/s") {
    return Kind::bytes;
  }
  if (base == "FLOP") {
    return Kind::flops;
  }
  return base == "FLOP/s" ? Kind::flop_rate : Kind::other;
}

// One word of the name, rewritten so that the name says what the converted value is and the linter accepts it.
std::string rewrite(std::string_view word, std::string_view previous, Kind kind) {
  if (previous == "per" && (word == "s" || word == "sec" || word == "secs")) {
    return "second";  // a rate: tokens_per_s
  }
  if (kind == Kind::time && one_of(word, kTimeWords)) {
    return "seconds";
  }
  if (kind == Kind::bytes && (one_of(word, kByteAbbreviations) || word.ends_with("byte") || word.ends_with("bytes"))) {
    return "bytes";
  }
  if ((kind == Kind::flops || kind == Kind::flop_rate) && prefixed_flops(word)) {
    return kind == Kind::flops ? "flops" : "flops_per_second";
  }
  if (kind == Kind::percent && (word == "pct" || word == "percent" || word == "percentage")) {
    return "ratio";
  }
  return refused_by_linter(word) ? std::string(word) + "value" : std::string(word);
}

// Whether `words` holds the words of `suffix` one after another.
bool says(const std::vector<std::string>& words, std::string_view suffix) {
  const std::vector<std::string> wanted = text::split(suffix, '_');
  for (std::size_t i = 0; i + wanted.size() <= words.size(); ++i) {
    if (std::equal(wanted.begin(), wanted.end(), words.begin() + static_cast<std::ptrdiff_t>(i))) {
      return true;
    }
  }
  return false;
}

bool ends_reserved(std::string_view name) {
  for (const std::string_view suffix : {"_count", "_sum", "_bucket", "_total"}) {
    if (name.ends_with(suffix)) {
      return true;
    }
  }
  return false;
}

}  // namespace

PrometheusName prometheus_name(std::string_view metric, std::string_view unit) {
  const std::optional<Quantity> quantity = parse_unit(unit);
  PrometheusName out;
  std::string_view suffix;
  Kind kind = Kind::other;
  if (quantity) {
    out.factor = quantity->factor;
    kind = kind_of(unit, quantity->base);
    for (const BaseUnit& b : kBaseUnits) {
      if (b.base == quantity->base) {
        suffix = b.suffix;
        out.factor *= b.factor;
        out.unit = std::string(b.words);
      }
    }
    if (unit == "%") {
      suffix = "ratio";
      out.unit = "ratio, 1 = 100%";
    }
  } else {
    out.unit = std::string(unit);  // not a unit of the schema: the values as they are, the unit in HELP
  }
  std::string snake = snake_case(metric);
  if (snake.size() == 1) {
    snake += "value";  // a one-letter name (compare's a and b): "avalue", never the linter's unit "b"
  }
  std::vector<std::string> words;
  for (const std::string& word : text::split(snake, '_')) {
    if (!word.empty()) {
      for (const std::string& part : text::split(rewrite(word, words.empty() ? "" : words.back(), kind), '_')) {
        words.push_back(part);
      }
    }
  }
  if (words.empty()) {
    words.emplace_back("value");
  }
  if (!suffix.empty() && !says(words, suffix)) {
    for (const std::string& part : text::split(suffix, '_')) {
      words.push_back(part);
    }
  }
  out.name = "dgx_" + text::join(words, "_");
  if (ends_reserved(out.name)) {
    out.name += "_value";
  }
  return out;
}

std::string prometheus_label_name(std::string_view key) {
  std::string name = snake_case(key);
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front())) != 0) {
    return "_" + name;
  }
  return name;
}

std::string prometheus_label_value(std::string_view value) {
  std::string out;
  for (const char c : printable(value, true)) {
    switch (c) {
    case '\\': out += "\\\\"; break;
    case '"': out += "\\\""; break;
    case '\n': out += "\\n"; break;
    default: out += c;
    }
  }
  return out;
}

std::string prometheus_help(std::string_view text) {
  std::string out;
  for (const char c : printable(text, true)) {
    switch (c) {
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    default: out += c;
    }
  }
  return out;
}

std::string prometheus_value(double value) {
  if (std::isnan(value)) {
    return "NaN";
  }
  if (std::isinf(value)) {
    return value > 0 ? "+Inf" : "-Inf";
  }
  if (value == std::trunc(value) && std::abs(value) < 9007199254740992.0) {  // 2^53: every integer exact
    return std::to_string(static_cast<long long>(value));
  }
  return json::write(json::Value(value), 0);
}

}  // namespace dgx
