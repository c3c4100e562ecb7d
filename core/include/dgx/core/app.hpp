// The dgxhost program: command line -> plugin discovery -> configuration -> mode -> results -> report.
#pragma once

namespace dgx {

/// Runs dgxhost and returns its exit code (see exit_codes.hpp).
int run_app(int argc, const char* const* argv);

}  // namespace dgx
