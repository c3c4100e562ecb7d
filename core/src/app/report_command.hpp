// Private to the host: `dgxhost report FILE`, a saved results document rendered again in any report format.
#pragma once

namespace dgx {

/// `dgxhost report FILE [--format FMT] [-o OUT]` (argv[0] is "report"); returns the exit code: 0 when rendered
/// (whatever the saved run's own exit code, which the report shows), 2 for a file that is not a results document or
/// bad options, 1 when OUT cannot be written.
int run_report(int argc, const char* const* argv);

}  // namespace dgx
