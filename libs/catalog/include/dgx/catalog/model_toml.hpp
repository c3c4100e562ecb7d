// A model as a catalog file: the configs/models/<name>.toml that parse_model (model_catalog.hpp) reads back to the
// same model. `dgxhost model show --format toml` prints it, so a Hugging Face config.json becomes a catalog entry.
// The writer lives beside the reader: one home for the key names.
#pragma once

#include "dgx/catalog/model_config.hpp"

#include <string>

namespace dgx::catalog {

/// The TOML text of `model`: the keys every model file has, then the ones whose value differs from the plain
/// decoder's default, then the tables ([linear_attention], [mamba2], [checkpoint], [[layer_group]]).
[[nodiscard]] std::string model_toml(const ModelConfig& model);

}  // namespace dgx::catalog
