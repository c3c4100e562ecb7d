// The message sizes of a sweep, as nccl-tests' -b (min), -e (max), -f (factor) and -i (increment) define them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dgx/sdk/error.hpp"

namespace dgx::plugins::comm {

struct SweepSpec {
  std::uint64_t min_bytes = 8;
  std::uint64_t max_bytes = 64ull << 20;
  std::uint64_t factor = 2;     // multiply by this ...
  std::uint64_t increment = 0;  // ... or, when non-zero, add this
};

/// The sizes from min to max inclusive; throws sdk::InvalidArgument naming the bad key.
std::vector<std::uint64_t> sweep_sizes(const SweepSpec& spec);

/// "8 B", "64 KiB", "1 MiB", "4 GiB"
std::string format_bytes(std::uint64_t bytes);

}  // namespace dgx::plugins::comm
