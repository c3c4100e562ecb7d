// Private to the host: `dgxhost history`, the store's series over time, with --detect the regressions in them.
#pragma once

namespace dgx {

/// `dgxhost history ...` (argv[0] is "history"); returns the exit code: 0, 5 when a series regressed in its
/// newest points, 2 for bad input or when no series has enough history to judge.
int run_history(int argc, const char* const* argv);

}  // namespace dgx
