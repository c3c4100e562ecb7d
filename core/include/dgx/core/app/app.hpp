// The dgxhost program: which command the command line asks for (launch, compare, --help, --version, --list, the
// platform check, a run), with what every command shares done once: the ranks joined, --output checked, the
// signal handlers installed, the plugins discovered.
#pragma once

namespace dgx {

/// Runs dgxhost and returns its exit code (see exit_codes.hpp).
int run_app(int argc, const char* const* argv);

}  // namespace dgx
