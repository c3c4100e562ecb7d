#include "sweep.hpp"

namespace dgx::plugins::comm {

std::vector<std::uint64_t> sweep_sizes(const SweepSpec& s) {
  if (s.min_bytes == 0) {
    throw sdk::InvalidArgument("comm.min_bytes (-b) must be at least 1");
  }
  if (s.max_bytes < s.min_bytes) {
    throw sdk::InvalidArgument("comm.max_bytes (-e) " + std::to_string(s.max_bytes) + " is below comm.min_bytes (-b) " +
                               std::to_string(s.min_bytes));
  }
  if (s.increment == 0 && s.factor < 2) {
    throw sdk::InvalidArgument("comm.step_factor (-f) must be at least 2 when comm.step_bytes (-i) is 0, got " +
                               std::to_string(s.factor));
  }
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t size = s.min_bytes; size <= s.max_bytes;) {
    if (sizes.size() == 4096) {
      throw sdk::InvalidArgument("the sweep has more than 4096 sizes; raise -f or -i");
    }
    sizes.push_back(size);
    const std::uint64_t next = s.increment != 0 ? size + s.increment : size * s.factor;
    if (next <= size) {
      break;  // overflow
    }
    size = next;
  }
  return sizes;
}

std::string format_bytes(std::uint64_t bytes) {
  static constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  std::uint64_t value = bytes;
  while (unit < 4 && value >= 1024 && value % 1024 == 0) {
    value /= 1024;
    ++unit;
  }
  return std::to_string(value) + " " + units[unit];
}

}  // namespace dgx::plugins::comm
