#include "dgx/catalog/precision.hpp"

#include "dgx/catalog/enum_names.hpp"

namespace dgx::catalog {

std::string_view to_string(Precision precision) {
  switch (precision) {
  case Precision::bf16: return "bf16";
  case Precision::fp8: return "fp8";
  case Precision::mxfp8: return "mxfp8";
  case Precision::nvfp4: return "nvfp4";
  case Precision::fp8_block: return "fp8-block";
  case Precision::mxfp4: return "mxfp4";
  case Precision::int4: return "int4";
  }
  return "?";
}

std::optional<Precision> parse_precision(std::string_view text) { return parse_by_name(text, kAllPrecisions); }

std::optional<Precision> parse_serve_precision(std::string_view text) { return parse_by_name(text, kServePrecisions); }

bool is_gemm_precision(Precision precision) {
  return precision != Precision::fp8_block && precision != Precision::mxfp4 && precision != Precision::int4;
}

PeakColumn peak_column(Precision precision) {
  switch (precision) {
  case Precision::bf16:
  case Precision::int4: return PeakColumn::bf16;
  case Precision::fp8:
  case Precision::mxfp8:
  case Precision::fp8_block: return PeakColumn::fp8;
  case Precision::nvfp4:
  case Precision::mxfp4: return PeakColumn::fp4;
  }
  return PeakColumn::bf16;
}

double gemm_operand_bytes(Precision precision) {
  switch (precision) {
  case Precision::bf16: return 2.0;
  case Precision::fp8: return 1.0;
  case Precision::mxfp8: return 1.0 + 1.0 / 32.0;                 // one E8M0 scale per 32 elements
  case Precision::nvfp4: return 0.5 + 1.0 / 16.0;                 // one E4M3 scale per 16 elements
  case Precision::fp8_block: return 1.0 + 4.0 / (128.0 * 128.0);  // one FP32 scale per 128×128 weight block
  case Precision::mxfp4: return 0.5 + 1.0 / 32.0;                 // one E8M0 scale per 32 elements: 4.25 bits
  case Precision::int4: return 0.5 + 2.0 / 32.0;                  // one BF16 scale per group of 32: 4.5 bits
  }
  return 2.0;
}

}  // namespace dgx::catalog
