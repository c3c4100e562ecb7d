#include "quantization.hpp"

#include <algorithm>

namespace dgx::catalog::hf {

namespace {

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

/// What a checkpoint's list of unquantized modules (names or "re:" patterns) leaves in 16 bits besides the
/// embedding, the LM head and the routers, which are never quantized here anyway.
struct Excluded {
  bool attention = false;
  bool other_mlps = false;  ///< dense MLPs or shared experts
};

Excluded excluded(const std::vector<std::string>& modules) {
  Excluded e;
  for (const std::string& module : modules) {
    e.attention = e.attention || contains(module, "self_attn") || contains(module, ".attn");
    e.other_mlps = e.other_mlps || contains(module, "shared_expert") ||
                   (contains(module, "mlp") && contains(module, "proj") && !contains(module, "experts"));
  }
  return e;
}

bool has_dense_mlps(const ModelConfig& m) {
  if (!m.moe() || m.shared_experts > 0 || m.dense_layers > 0) {
    return true;
  }
  return std::any_of(m.layer_groups.begin(), m.layer_groups.end(),
                     [](const LayerGroup& g) { return g.mlp == Mlp::dense; });
}

QuantizedPart quantized_part(const Excluded& e, const ModelConfig& m, std::vector<std::string>& notes) {
  if (!e.attention) {
    return QuantizedPart::all;
  }
  if (m.moe() && (e.other_mlps || !has_dense_mlps(m))) {
    notes.emplace_back("the checkpoint quantizes the routed experts only (attention" +
                       std::string(has_dense_mlps(m) ? ", dense MLPs and shared experts" : "") + " in BF16)");
    return QuantizedPart::experts;
  }
  notes.emplace_back("the checkpoint quantizes the MLPs (the attention projections it excludes in BF16)");
  return QuantizedPart::mlp;
}

std::vector<std::string> optional_strings(const JsonFields& q, std::string_view key) {
  return q.has(key) ? q.strings(key) : std::vector<std::string>{};
}

/// compressed-tensors: the weights of its first config group say the format (weight-only or not).
WeightFormat compressed_tensors_format(const JsonFields& q) {
  const JsonFields groups = q.object("config_groups");
  const JsonFields weights = groups.object("group_0").object("weights");
  const int bits = weights.positive("num_bits");
  const std::string type = weights.string("type");
  if (type == "int" && bits == 4) {
    return WeightFormat::int4;
  }
  if (type == "float" && bits == 8) {
    return weights.optional_string("strategy").value_or("") == "block" ? WeightFormat::fp8_block : WeightFormat::fp8;
  }
  if (type == "float" && bits == 4 && weights.count("group_size") == 16) {
    return WeightFormat::nvfp4;
  }
  weights.fail("type", "is " + std::to_string(bits) + "-bit " + type +
                           ": not a format read (4-bit int, 8-bit float, 4-bit float in groups of 16)");
}

}  // namespace

CheckpointFormat read_quantization_config(const JsonFields& q, const ModelConfig& m, std::vector<std::string>& notes) {
  const std::string method = q.string("quant_method");
  CheckpointFormat format;
  if (method == "fp8") {
    format.weights = q.has("weight_block_size") ? WeightFormat::fp8_block : WeightFormat::fp8;
    format.quantized = quantized_part(excluded(optional_strings(q, "modules_to_not_convert")), m, notes);
  } else if (method == "mxfp4") {
    format.weights = WeightFormat::mxfp4;
    format.quantized = quantized_part(excluded(optional_strings(q, "modules_to_not_convert")), m, notes);
  } else if (method == "compressed-tensors") {
    format.weights = compressed_tensors_format(q);
    format.quantized = quantized_part(excluded(optional_strings(q, "ignore")), m, notes);
  } else {
    q.fail("quant_method", "is \"" + method + "\": the methods read are fp8, mxfp4 and compressed-tensors");
  }
  return format;
}

CheckpointFormat read_modelopt_quantization(const JsonFields& root, const ModelConfig& m,
                                            std::vector<std::string>& notes) {
  const JsonFields q = root.object("quantization");
  const std::string algo = q.string("quant_algo");
  CheckpointFormat format;
  if (algo == "NVFP4") {
    format.weights = WeightFormat::nvfp4;
  } else if (algo == "FP8") {
    format.weights = WeightFormat::fp8;
  } else {
    q.fail("quant_algo", "is \"" + algo + "\": the algorithms read are NVFP4 and FP8");
  }
  format.quantized = quantized_part(excluded(optional_strings(q, "exclude_modules")), m, notes);
  return format;
}

}  // namespace dgx::catalog::hf
