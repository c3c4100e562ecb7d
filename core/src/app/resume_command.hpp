// Private to the host: `dgxhost --resume DIR` without --plugin repeats the command line its journal recorded
// (run_folder.hpp); only the way results are shown (--format, --output, --quiet, --verbose) may be given anew.
#pragma once

#include "dgx/core/config/cli.hpp"
#include "dgx/core/support/expected.hpp"

namespace dgx {

/// Parses the command line; for a bare --resume DIR, the journal's command line with those options given now.
Expected<CliOptions> parse_or_resume(int argc, const char* const* argv);

}  // namespace dgx
