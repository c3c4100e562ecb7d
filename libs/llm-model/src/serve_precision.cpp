#include "dgx/llm/serve_precision.hpp"

#include <cctype>

namespace dgx::llm {

namespace {

/// Whether `model`'s checkpoint is served as it ships and quantizes its routed experts alone.
bool experts_only(const ModelConfig& model, Precision serving) {
  return serving == checkpoint_precision(model) && model.checkpoint.quantized == QuantizedPart::experts &&
         serving != Precision::bf16;
}

std::string upper(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    c = c == '-' ? ' ' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace

Precision gemm_precision(Precision serving, const SystemProfile& system) {
  switch (serving) {
  case Precision::fp8_block: return Precision::fp8;
  case Precision::mxfp4: return system.supports(Precision::mxfp8) ? Precision::mxfp8 : Precision::bf16;
  case Precision::int4: return Precision::bf16;
  default: break;
  }
  return serving;
}

double serve_weight_element_bytes(const ModelConfig& model, Precision serving, bool expert) {
  if (!expert && experts_only(model, serving)) {
    return gemm_operand_bytes(Precision::bf16);
  }
  return gemm_operand_bytes(serving);
}

GemmFormat serve_gemm_format(const ModelConfig& model, const SystemProfile& system, Precision serving, bool expert) {
  if (!expert && experts_only(model, serving)) {
    return GemmFormat{.compute = Precision::bf16};
  }
  GemmFormat f{.compute = gemm_precision(serving, system)};
  const double weights = serve_weight_element_bytes(model, serving, expert);
  f.weight_bytes = weights != gemm_operand_bytes(f.compute) ? weights : 0.0;
  return f;
}

Precision checkpoint_precision(const ModelConfig& model) {
  switch (model.checkpoint.weights) {
  case WeightFormat::bf16: return Precision::bf16;
  case WeightFormat::fp8: return Precision::fp8;
  case WeightFormat::fp8_block: return Precision::fp8_block;
  case WeightFormat::mxfp4: return Precision::mxfp4;
  case WeightFormat::nvfp4: return Precision::nvfp4;
  case WeightFormat::int4: return Precision::int4;
  }
  return Precision::bf16;
}

std::string precision_assumption(const ModelConfig& model, const SystemProfile& system, Precision serving) {
  const bool experts = experts_only(model, serving);
  const std::string what = experts ? " experts" : " weights";
  std::string out;
  if (serving == Precision::mxfp4) {
    out = gemm_precision(serving, system) == Precision::bf16
              ? "MXFP4" + what + " run as W4A16 on " + system.name +
                    ": no FP4 tensor cores, so the 4.25-bit weights are dequantized to BF16 in the GEMM and multiplied "
                    "at the BF16 peak"
              : "MXFP4" + what + " run as W4A8 on " + system.name +
                    ": MXFP4 weights x MXFP8 activations at the FP8 peak (TensorRT-LLM's default MoE backend on "
                    "Blackwell)";
  } else if (serving == Precision::int4) {
    out = "INT4" + what + " (groups of 32, BF16 scales) run as W4A16 on " + system.name +
          ": dequantized to BF16 in the GEMM's main loop and multiplied at the BF16 peak (Marlin-style kernels)";
  } else if (serving == Precision::fp8_block) {
    out = "FP8 block-scaled" + what + " (128x128 blocks) run as FP8 GEMMs at the FP8 peak on " + system.name +
          ": their FP32 scales are read with them, the promotion of the partial sums in the main loop is not timed";
  }
  if (experts) {
    out += (out.empty() ? upper(to_string(serving)) + " experts as " + model.name + "'s checkpoint ships them" : "") +
           "; attention, router and the other linear layers stay BF16, as the checkpoint ships them";
  } else if (model.checkpoint.weights != WeightFormat::bf16 && serving != checkpoint_precision(model)) {
    out += std::string(out.empty() ? "" : "; ") + model.name + "'s checkpoint ships " +
           std::string(to_string(checkpoint_precision(model))) + ": " + std::string(to_string(serving)) +
           " quantizes every linear layer anew";
  }
  return out;
}

}  // namespace dgx::llm
