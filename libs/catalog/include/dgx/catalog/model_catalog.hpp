// The model catalog: configs/models/<name>.toml, embedded in the library.
#pragma once

#include "dgx/catalog/expected.hpp"
#include "dgx/catalog/model_config.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dgx::catalog {

/// Parses one model file. Errors name the file and the key (and line:column for syntax errors).
[[nodiscard]] Expected<ModelConfig> parse_model(std::string_view toml_text, std::string_view file);

/// A model of the embedded catalog by name ("llama3.1-70b") or by one of its aliases ("llama3.3-70b": the model
/// keeps its own name), or a Hugging Face config.json by its path: a name ending in ".json" or naming a folder that
/// holds config.json is read by read_hf_config (hf_config.hpp), whose errors name the file, the field and the reason.
[[nodiscard]] Expected<ModelConfig> find_model(std::string_view name);

/// The catalog model a tool means by the name it prints ("llama31_405b", "meta-llama/Meta-Llama-3.1-70B-Instruct",
/// "llama3 8B"): the names and aliases of the catalog compared without an organisation prefix ("meta-llama/"),
/// case, punctuation or an instruct / chat / hf / base suffix; nullopt when none matches.
[[nodiscard]] std::optional<std::string> model_for_printed_name(std::string_view printed);

/// What a log may print of a model's architecture; 0: not printed.
struct PrintedArchitecture {
  long layers = 0;
  long hidden = 0;
  long ffn = 0;
  long heads = 0;
  long kv_groups = 0;
  long experts = 0;
};

/// The catalog models whose architecture agrees with every field `printed` states (at least layers and hidden:
/// fewer would match too much; empty otherwise), sorted.
[[nodiscard]] std::vector<std::string> models_with_architecture(const PrintedArchitecture& printed);

/// Names of the catalog's models (its search folders and the compiled-in copy), sorted.
[[nodiscard]] std::vector<std::string> model_names();

/// Every alias of the embedded models, sorted.
[[nodiscard]] std::vector<std::string> model_aliases();

}  // namespace dgx::catalog
