// How a serving precision runs on a system: the format the linear layers' weights are read in and the tensor-core
// precision they are multiplied in. A checkpoint's own format (ModelConfig::checkpoint) is served as it ships: gpt-oss
// quantizes its routed experts alone to MXFP4 and keeps attention and router in BF16; DeepSeek-V3 and Qwen3-FP8 ship
// FP8 with 128×128 weight blocks. Where a GPU has no kernel of a format's own the engines run another:
// - mxfp4 on Hopper (no FP4 tensor cores): W4A16, the MXFP4 weights dequantized to BF16 in the GEMM's main loop and
//   multiplied at the BF16 rate (TensorRT-LLM's Triton MoE backend, Marlin-style kernels);
// - mxfp4 on Blackwell: W4A8, MXFP4 weights × MXFP8 activations at the FP8 rate (TensorRT-LLM's default TRTLLM MoE
//   backend on B200 / GB200 / B300 / GB300; its gpt-oss deployment guide);
// - int4 (Kimi K2.5's experts, compressed-tensors): W4A16 on every GPU, the integers dequantized to BF16 in the main
//   loop (vLLM's Marlin kernels);
// - fp8-block: FP8 GEMMs at the FP8 rate; their scales (one FP32 per 128×128 weight block, one per 128 activations) are
//   read with the operands and the partial sums promoted in the main loop (DeepGEMM), whose time is not counted.
#pragma once

#include "dgx/llm/catalog.hpp"

#include <optional>
#include <string>

namespace dgx::llm {

/// One linear layer's GEMMs: the precision they run at (its peak, its activation operand) and the bytes of a weight.
struct GemmFormat {
  Precision compute = Precision::bf16;
  double weight_bytes = 0;  ///< bytes per weight element where narrower than `compute`'s operand; 0: the same
  /// Bytes per element of the activation operand (what the norm or activation before the GEMM writes).
  [[nodiscard]] double input_bytes() const { return gemm_operand_bytes(compute); }
  /// Bytes per weight element the GEMM reads.
  [[nodiscard]] double weights() const { return weight_bytes > 0 ? weight_bytes : gemm_operand_bytes(compute); }
};

/// The tensor-core precision a serving precision runs its quantized GEMMs at on `system`: itself for bf16, fp8,
/// mxfp8 and nvfp4; fp8 for fp8-block; for mxfp4 mxfp8 on GPUs with block-scaled FP8 (Blackwell, W4A8), else bf16
/// (W4A16); bf16 for int4 (W4A16).
[[nodiscard]] Precision gemm_precision(Precision serving, const SystemProfile& system);

/// The format of one linear layer of `model` served in `serving` on `system` (`expert`: a routed expert's). A
/// checkpoint served in its own format keeps what it does not quantize (QuantizedPart::experts: all but the routed
/// experts) in BF16; any other precision quantizes every linear layer.
[[nodiscard]] GemmFormat serve_gemm_format(const ModelConfig& model, const SystemProfile& system, Precision serving,
                                           bool expert);

/// Bytes per weight element of one linear layer of `model` served in `serving` (`expert`: a routed expert's): the
/// format's, scales included (fp8-block 1 + 4/128², mxfp4 0.5 + 1/32, int4 0.5 + 2/32); 2 (BF16) for what a checkpoint
/// served in its own format does not quantize. The same on every system: a format's bytes do not depend on how it is
/// multiplied.
[[nodiscard]] double serve_weight_element_bytes(const ModelConfig& model, Precision serving, bool expert);

/// The serving precision of a model's checkpoint format (bf16, fp8, fp8-block, mxfp4, nvfp4, int4).
[[nodiscard]] Precision checkpoint_precision(const ModelConfig& model);

/// What a projection in `serving` assumed beyond the format itself, one sentence ("MXFP4 experts run as W4A16 on
/// h100-sxm: no FP4 tensor cores; attention and router stay BF16, as the checkpoint ships them"); empty when the
/// precision runs as itself on every linear layer.
[[nodiscard]] std::string precision_assumption(const ModelConfig& model, const SystemProfile& system,
                                               Precision serving);

}  // namespace dgx::llm
