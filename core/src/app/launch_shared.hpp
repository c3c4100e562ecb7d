// Private to `dgxhost launch`: what its files share (launch_options.cpp, slurm_script.cpp, mpijob_manifest.cpp), so
// that every message starts alike, every value is judged by the same rules and both job files explain themselves
// alike.
#pragma once

#include <string>
#include <string_view>

#include "dgx/core/support/expected.hpp"

namespace dgx {

/// A usage failure (exit code 2) whose message starts with "dgxhost launch: ".
Failure launch_usage(std::string message);

/// `value` is non-empty and made of letters, digits and `allowed_punctuation` only.
bool only(const std::string& value, std::string_view allowed_punctuation);

/// `text` as '#' comment lines of a script or manifest, wrapped to 118 columns.
std::string comment_lines(std::string_view text);

}  // namespace dgx
