// Private to the host: `dgxhost compare A.json B.json`, run B against run A (verdict/compare.hpp) and report with
// the usual reporters.
#pragma once

namespace dgx {

/// The `dgxhost compare` command: argv[0] is "compare". Returns the exit code.
int run_compare(int argc, const char* const* argv);

}  // namespace dgx
