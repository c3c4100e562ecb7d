// Numeric formats a training run can use for its GEMMs.
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
enum class Precision : std::uint8_t { bf16, fp8, mxfp8, nvfp4 };

inline constexpr Precision kAllPrecisions[] = {Precision::bf16, Precision::fp8, Precision::mxfp8, Precision::nvfp4};

/// The peak-FLOPs column a precision's GEMMs run at.
enum class PeakColumn : std::uint8_t { bf16, fp8, fp4 };

[[nodiscard]] std::string_view to_string(Precision precision);
[[nodiscard]] std::optional<Precision> parse_precision(std::string_view text);
[[nodiscard]] PeakColumn peak_column(Precision precision);

/// Bytes per element of a GEMM operand in this precision, block scales included (mxfp8: 1 + 1/32, nvfp4:
/// 0.5 + 1/16).
[[nodiscard]] double gemm_operand_bytes(Precision precision);

/// True for the formats that cast BF16 activations and gradients to a narrower type before each GEMM.
[[nodiscard]] inline bool casts_gemm_inputs(Precision precision) { return precision != Precision::bf16; }

}  // namespace dgx::catalog
