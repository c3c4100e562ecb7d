// Private to the Hugging Face reader: the format a checkpoint ships its weights in, from config.json's
// quantization_config (transformers' fp8 and mxfp4 methods, compressed-tensors) or NVIDIA Model Optimizer's
// hf_quant_config.json, and which layers its excluded modules leave in 16 bits.
#pragma once

#include "dgx/catalog/model_config.hpp"

#include "json_fields.hpp"

#include <string>
#include <vector>

namespace dgx::catalog::hf {

/// config.json's quantization_config (the root's or text_config's), for the model `m` (which MLPs it has).
[[nodiscard]] CheckpointFormat read_quantization_config(const JsonFields& q, const ModelConfig& m,
                                                        std::vector<std::string>& notes);

/// hf_quant_config.json's quantization (quant_algo and exclude_modules).
[[nodiscard]] CheckpointFormat read_modelopt_quantization(const JsonFields& root, const ModelConfig& m,
                                                          std::vector<std::string>& notes);

}  // namespace dgx::catalog::hf
