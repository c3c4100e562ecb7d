// The deliberately broken fixture plugins (tests/fixtures/broken/libdgx-<name>.so): each must be rejected in one
// line naming its file while every other plugin keeps working.
#pragma once

#include <array>
#include <string_view>

namespace dgx::testing {

inline constexpr std::array<std::string_view, 19> kBrokenFixtures = {
    "bad-name",    "colon-name",     "ctor-abort",  "duplicate-key", "entry-data",  "future-abi", "garbage",
    "init-abort",  "init-error",     "init-exit",   "init-segfault", "init-throws", "no-entry",   "null-create",
    "null-params", "null-workloads", "runner-type", "short-struct",  "truncated"};

}  // namespace dgx::testing
