#include "dgx/llm/serve_precision.hpp"

namespace dgx::llm {

Precision gemm_precision(Precision serving, const SystemProfile& /*system*/) { return serving; }

GemmFormat serve_gemm_format(const ModelConfig& /*model*/, const SystemProfile& system, Precision serving,
                             bool /*expert*/) {
  return GemmFormat{.compute = gemm_precision(serving, system)};
}

double serve_weight_element_bytes(const ModelConfig& /*model*/, Precision serving, bool /*expert*/) {
  return gemm_operand_bytes(serving);
}

Precision checkpoint_precision(const ModelConfig& model) {
  switch (model.checkpoint.weights) {
  case WeightFormat::fp8: return Precision::fp8;
  case WeightFormat::nvfp4: return Precision::nvfp4;
  default: break;
  }
  return Precision::bf16;
}

std::string precision_assumption(const ModelConfig& /*model*/, const SystemProfile& /*system*/, Precision /*serving*/) {
  return {};
}

}  // namespace dgx::llm
