// Collective rows as nccl-tests prints them: one line per message size with the out-of-place and in-place
// results side by side, integer byte sizes and element counts, time in microseconds with nccl-tests' decimals,
// bandwidths in GB/s with two, and #wrong. Used for the terminal, Markdown and HTML tables of rows a plugin marks
// with the hidden field table_layout = "nccl-tests" (plugins/comm); JSON and CSV keep one row per case.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dgx/core/report/table.hpp"

namespace dgx {

/// The nccl-tests table of `rows`, or nullopt when they are not all measured collective rows marked for it (a
/// table with reference rows or verdicts keeps the generic layout, which shows them).
std::optional<Table> nccl_tests_table(const std::string& title, const std::vector<const ResultRow*>& rows);

}  // namespace dgx
