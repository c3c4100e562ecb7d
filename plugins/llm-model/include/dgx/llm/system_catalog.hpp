// The system catalog: configs/systems/<name>.toml, embedded in the library.
#pragma once

#include "dgx/llm/expected.hpp"
#include "dgx/llm/system_profile.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace dgx::llm {

/// Parses one system file. Errors name the file and the key (and line:column for syntax errors).
[[nodiscard]] Expected<SystemProfile> parse_system(std::string_view toml_text, std::string_view file);

/// A system of the embedded catalog by name ("h100-sxm").
[[nodiscard]] Expected<SystemProfile> find_system(std::string_view name);

/// Names of the embedded systems, sorted.
[[nodiscard]] std::vector<std::string> system_names();

}  // namespace dgx::llm
