// "Did you mean ...?" for catalog names (models, systems, frameworks, price providers), which users abbreviate
// ("llama70b" for llama3.1-70b) more than they misspell: the message of the configuration error an unknown name is.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dgx::llm::workload {

/// "unknown <noun> 'name' (config key <key>); did you mean 'a' or 'b'? The catalog has: ...". The suggestions are
/// the SDK's close matches (dgx::sdk::text::close_matches), a swap of two letters counting as two edits; `likely`,
/// when not empty, is suggested first (e.g. the model of a preset whose name was given as the model).
[[nodiscard]] std::string unknown_name_message(std::string_view noun, std::string_view name, std::string_view key,
                                               const std::vector<std::string>& candidates,
                                               const std::string& likely = {});

}  // namespace dgx::llm::workload
