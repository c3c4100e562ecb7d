// Number formatting for the notes and labels the plugin writes (the host formats metric values itself).
#pragma once

#include <string>
#include <vector>

namespace dgx::llm::workload {

/// `value` with `decimals` digits after the point: fixed(3.14159, 2) == "3.14".
[[nodiscard]] std::string fixed(double value, int decimals);
/// An integer with thousands separators: 1234567 -> "1,234,567".
[[nodiscard]] std::string grouped(long long value);
/// Bytes in GiB with one decimal, the unit HBM capacities are quoted in: "80.0 GiB".
[[nodiscard]] std::string gib(double bytes);
/// Dollars, scaled to a readable unit: "$870", "$12.3k", "$4.56M", "$1.23B".
[[nodiscard]] std::string usd(double dollars);
/// A large count with three significant digits: "70.6B", "1.00T", "850M".
[[nodiscard]] std::string si_count(double count);
/// Seconds in the unit that suits them: "850 ms", "12.3 s".
[[nodiscard]] std::string duration(double seconds);
/// The items separated by `separator`: "a, b, c".
[[nodiscard]] std::string join(const std::vector<std::string>& items, const std::string& separator = ", ");

}  // namespace dgx::llm::workload
