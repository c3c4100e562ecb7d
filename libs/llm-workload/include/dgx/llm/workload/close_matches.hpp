// "Did you mean ...?" for catalog names (models, systems, price providers), which users abbreviate
// ("llama70b" for llama3.1-70b) more than they misspell.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dgx::llm::workload {

/// Up to `limit` candidates close to `name`, best first: by edit distance of the names reduced to lower-case
/// letters and digits (so "llama70b" is two edits from "llama3.1-70b"), allowing about one edit in three
/// characters (at least one), or containing one another.
[[nodiscard]] std::vector<std::string> close_matches(std::string_view name, const std::vector<std::string>& candidates,
                                                     std::size_t limit = 3);

/// "unknown <noun> 'name' (config key <key>); did you mean 'a' or 'b'? The catalog has: ...". `likely`, when
/// not empty, is suggested first (e.g. the model of a preset whose name was given as the model).
[[nodiscard]] std::string unknown_name_message(std::string_view noun, std::string_view name, std::string_view key,
                                               const std::vector<std::string>& candidates,
                                               const std::string& likely = {});

}  // namespace dgx::llm::workload
