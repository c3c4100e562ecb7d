// What both backends share: reading a column back as the type the store wants.
#include <array>
#include <charconv>
#include <cmath>
#include <limits>

#include "database.hpp"

namespace dgx::detail {

std::string sql_text(const SqlValue& value) {
  if (const auto* s = std::get_if<std::string>(&value)) {
    return *s;
  }
  if (const auto* n = std::get_if<std::int64_t>(&value)) {
    return std::to_string(*n);
  }
  if (const auto* d = std::get_if<double>(&value)) {
    std::array<char, 32> buffer{};
    const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), *d);
    return {buffer.data(), result.ptr};
  }
  return {};
}

std::int64_t sql_int(const SqlValue& value) {
  if (const auto* n = std::get_if<std::int64_t>(&value)) {
    return *n;
  }
  if (const auto* d = std::get_if<double>(&value)) {
    return static_cast<std::int64_t>(*d);
  }
  if (const auto* s = std::get_if<std::string>(&value)) {
    std::int64_t n = 0;
    std::from_chars(s->data(), s->data() + s->size(), n);
    return n;
  }
  return 0;
}

double sql_real(const SqlValue& value) {
  if (const auto* d = std::get_if<double>(&value)) {
    return *d;
  }
  if (const auto* n = std::get_if<std::int64_t>(&value)) {
    return static_cast<double>(*n);
  }
  if (const auto* s = std::get_if<std::string>(&value)) {
    return std::strtod(s->c_str(), nullptr);
  }
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace dgx::detail
