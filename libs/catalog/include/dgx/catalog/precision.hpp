// Numeric formats a run can use for its GEMMs, and the checkpoint formats serving reads weights in.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace dgx::catalog {

/// The GEMM precision of a run. Attention and memory-bound ops stay in BF16 in every mode (as in the NeMo and
/// Megatron FP8 recipes the calibration set comes from), weights are kept in BF16 and optimizer state in FP32.
/// - bf16: BF16 GEMMs.
/// - fp8: FP8 (E4M3/E5M2) GEMMs with per-tensor delayed scaling (Transformer Engine on Hopper and later).
/// - mxfp8: FP8 with 32-element block scales (Blackwell only).
/// - nvfp4: FP4 (E2M1) with 16-element block scales (Blackwell only).
/// Serving also reads weights in two checkpoint formats that have no GEMM of their own (libs/llm-model's
/// serve_precision.hpp says what they run as on each GPU); they are never a training precision, and the system
/// profiles' per-precision tables hold only the four above:
/// - fp8_block: FP8 E4M3 weights in 128×128 blocks with an FP32 scale each (DeepSeek-V3, Qwen3-FP8);
/// - mxfp4: OCP MXFP4, E2M1 in blocks of 32 with one E8M0 scale (gpt-oss's experts);
/// - int4: symmetric 4-bit integers in groups of 32 with one BF16 scale (compressed-tensors' pack-quantized, Kimi
///   K2.5's experts), multiplied as W4A16.
enum class Precision : std::uint8_t { bf16, fp8, mxfp8, nvfp4, fp8_block, mxfp4, int4 };

/// The GEMM precisions: what training runs and what the system profiles' tables are indexed by.
inline constexpr Precision kAllPrecisions[] = {Precision::bf16, Precision::fp8, Precision::mxfp8, Precision::nvfp4};
/// What serving takes: the GEMM precisions and the checkpoint formats.
inline constexpr Precision kServePrecisions[] = {Precision::bf16,  Precision::fp8,       Precision::mxfp8,
                                                 Precision::nvfp4, Precision::fp8_block, Precision::mxfp4,
                                                 Precision::int4};

/// The peak-FLOPs column a precision's GEMMs run at.
enum class PeakColumn : std::uint8_t { bf16, fp8, fp4 };

[[nodiscard]] std::string_view to_string(Precision precision);
/// A GEMM precision (kAllPrecisions) by name.
[[nodiscard]] std::optional<Precision> parse_precision(std::string_view text);
/// A serving precision (kServePrecisions) by name: "fp8-block", "mxfp4" and "int4" too.
[[nodiscard]] std::optional<Precision> parse_serve_precision(std::string_view text);
/// Whether `precision` is a GEMM precision (kAllPrecisions), not a checkpoint format alone.
[[nodiscard]] bool is_gemm_precision(Precision precision);
[[nodiscard]] PeakColumn peak_column(Precision precision);

/// Bytes per element of a GEMM operand in this precision, block scales included (mxfp8: 1 + 1/32, nvfp4:
/// 0.5 + 1/16); of a weight for the checkpoint formats (fp8_block: 1 + 4/128², mxfp4: 0.5 + 1/32, int4: 0.5 + 2/32).
[[nodiscard]] double gemm_operand_bytes(Precision precision);

/// True for the formats that cast BF16 activations and gradients to a narrower type before each GEMM.
[[nodiscard]] inline bool casts_gemm_inputs(Precision precision) { return precision != Precision::bf16; }

}  // namespace dgx::catalog
