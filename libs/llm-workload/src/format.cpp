#include "dgx/llm/workload/format.hpp"

#include <cmath>
#include <cstdio>

namespace dgx::llm::workload {

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string grouped(long long value) {
  const std::string digits = std::to_string(value < 0 ? -value : value);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) {
      out += ',';
    }
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

std::string gib(double bytes) { return fixed(bytes / (1024.0 * 1024.0 * 1024.0), 1) + " GiB"; }

std::string usd(double dollars) {
  // Three significant digits: a projection is not more precise than that.
  const auto scaled = [](double value, const char* suffix) {
    const int decimals = value >= 100 ? 0 : value >= 10 ? 1 : 2;
    return "$" + fixed(value, decimals) + suffix;
  };
  const double magnitude = std::abs(dollars);
  if (magnitude >= 1e9) {
    return scaled(dollars / 1e9, "B");
  }
  if (magnitude >= 1e6) {
    return scaled(dollars / 1e6, "M");
  }
  if (magnitude >= 1e4) {
    return scaled(dollars / 1e3, "k");
  }
  return "$" + fixed(dollars, magnitude >= 100 ? 0 : 2);
}

std::string si_count(double count) {
  const auto scaled = [](double value, const char* suffix) {
    return fixed(value, value >= 100 ? 0 : value >= 10 ? 1 : 2) + suffix;
  };
  const double magnitude = std::abs(count);
  if (magnitude >= 1e12) {
    return scaled(count / 1e12, "T");
  }
  if (magnitude >= 1e9) {
    return scaled(count / 1e9, "B");
  }
  if (magnitude >= 1e6) {
    return scaled(count / 1e6, "M");
  }
  if (magnitude >= 1e3) {
    return scaled(count / 1e3, "k");
  }
  return fixed(count, 0);
}

std::string duration(double seconds) {
  if (seconds < 1) {
    return fixed(seconds * 1e3, seconds < 0.1 ? 1 : 0) + " ms";
  }
  return fixed(seconds, seconds < 10 ? 2 : 1) + " s";
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    out += (i != 0 ? separator : "") + items[i];
  }
  return out;
}

}  // namespace dgx::llm::workload
