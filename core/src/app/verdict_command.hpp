// Private to the host: `dgxhost verdict FILE...`, a real run held against the projection of exactly its
// configuration and against the nearest published reference (verdict/projection_check.hpp, verdict/baseline.hpp).
// FILE is a dgx.results/1 document (a dgxhost run, or `dgxhost import -o`) or any log or result file `dgxhost
// import` reads, imported on the way.
#pragma once

namespace dgx {

/// The `dgxhost verdict` command: argv[0] is "verdict". Returns the exit code: 0 every row as fast as it should
/// be, 5 a row slower than its projection or below its reference, 2 a file that cannot be read or imported.
int run_verdict(int argc, const char* const* argv);

}  // namespace dgx
