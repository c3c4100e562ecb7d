// The model catalog: configs/models/<name>.toml, embedded in the library.
#pragma once

#include "dgx/catalog/expected.hpp"
#include "dgx/catalog/model_config.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace dgx::catalog {

/// Parses one model file. Errors name the file and the key (and line:column for syntax errors).
[[nodiscard]] Expected<ModelConfig> parse_model(std::string_view toml_text, std::string_view file);

/// A model of the embedded catalog by name ("llama3.1-70b") or by one of its aliases ("llama3.3-70b": the model
/// keeps its own name).
[[nodiscard]] Expected<ModelConfig> find_model(std::string_view name);

/// Names of the embedded models, sorted.
[[nodiscard]] std::vector<std::string> model_names();

/// Every alias of the embedded models, sorted.
[[nodiscard]] std::vector<std::string> model_aliases();

}  // namespace dgx::catalog
