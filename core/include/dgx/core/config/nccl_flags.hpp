// nccl-tests' one-letter options that dgxhost also defines with another meaning: -o (nccl-tests: the reduction
// operation; dgxhost: --output FILE), -c (nccl-tests: check results, 0 or 1; dgxhost: --config FILE) and -m
// (nccl-tests: operations aggregated per launch; dgxhost: --mode). A value only nccl-tests' meaning accepts is
// read as nccl-tests reads it — `-o max` sets comm.op, `-c 0` turns comm.check off — or refused with a message
// (`-m 4`), never silently taken for dgxhost's (a file named `max`).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "dgx/core/support/expected.hpp"

namespace dgx {

/// For `-o`, `-c` or `-m` with `value`: nullopt when the value means what dgxhost's option means; a workload
/// alias (letter, value) when only nccl-tests' meaning fits; a usage failure when dgxhost cannot do what
/// nccl-tests would.
std::optional<Expected<std::pair<std::string, std::string>>> nccl_tests_option(std::string_view letter,
                                                                               std::string_view value);

/// What to add to "unknown option -LETTER for workload W" when the letter is one of the above: why dgxhost
/// took it for nccl-tests' option and how to get dgxhost's. Empty for other letters.
std::string nccl_tests_hint(std::string_view letter, std::string_view value);

}  // namespace dgx
