// A model from the file the ecosystem ships with it: a Hugging Face config.json (and, beside it, NVIDIA Model
// Optimizer's hf_quant_config.json). Every architecture it understands (hf_config_architectures) is mapped to the
// catalog's ModelConfig faithfully: layers that differ become layer groups, what is understood but not modelled
// (attention sinks, partial rotary embeddings, a YaRN-extended context) is said in `source`, and a multimodal
// checkpoint's vision tower is estimated into extra_params. find_model (model_catalog.hpp) reads a path through it.
#pragma once

#include "dgx/catalog/expected.hpp"
#include "dgx/catalog/model_config.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace dgx::catalog {

/// Reads `path`: a config.json (any file name: "org--name_config.json" reads its hf_quant_config.json as
/// "org--name_hf_quant_config.json") or a folder holding config.json. The model is named for its repository where
/// the path says it ("org--name_config.json", the Hugging Face cache's models--org--name/snapshots/<hash>/), else for
/// its folder: `name` lower case ("meta-llama-3.1-70b"), `display` as written, `source` "config.json of org/name"
/// with the notes. context is max_position_embeddings; seq_len the pretraining context the config states
/// (rope_scaling's original_max_position_embeddings, initial_context_length), else 4096, capped by the context.
/// Errors name the file, the field and the reason: not JSON (with line:column), a field missing or non-physical,
/// an architecture not understood (with the nearest known ones).
[[nodiscard]] Expected<ModelConfig> read_hf_config(const std::filesystem::path& path);

/// The `architectures` names read_hf_config understands ("LlamaForCausalLM", ...), sorted.
[[nodiscard]] std::vector<std::string> hf_config_architectures();

/// Whether `name` is meant as a config.json path rather than a catalog name: it ends in ".json", or names a folder
/// that holds a config.json.
[[nodiscard]] bool names_hf_config(std::string_view name);

}  // namespace dgx::catalog
