// Private to the host: `dgxhost import FILE...`, a run's own output (a training log, nccl-tests' table, a serving
// benchmark's results) as dgx.results/1 rows of mode measured (import/import.hpp), reported with the usual
// reporters.
#pragma once

namespace dgx {

/// The `dgxhost import` command: argv[0] is "import". Returns the exit code.
int run_import(int argc, const char* const* argv);

}  // namespace dgx
