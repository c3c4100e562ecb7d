#include "dgx/catalog/precision.hpp"

#include "dgx/catalog/enum_names.hpp"

namespace dgx::catalog {

std::string_view to_string(Precision precision) {
  switch (precision) {
  case Precision::bf16: return "bf16";
  case Precision::fp8: return "fp8";
  case Precision::mxfp8: return "mxfp8";
  case Precision::nvfp4: return "nvfp4";
  }
  return "?";
}

std::optional<Precision> parse_precision(std::string_view text) { return parse_by_name(text, kAllPrecisions); }

PeakColumn peak_column(Precision precision) {
  switch (precision) {
  case Precision::bf16: return PeakColumn::bf16;
  case Precision::fp8:
  case Precision::mxfp8: return PeakColumn::fp8;
  case Precision::nvfp4: return PeakColumn::fp4;
  }
  return PeakColumn::bf16;
}

double gemm_operand_bytes(Precision precision) {
  switch (precision) {
  case Precision::bf16: return 2.0;
  case Precision::fp8: return 1.0;
  case Precision::mxfp8: return 1.0 + 1.0 / 32.0;  // one E8M0 scale per 32 elements
  case Precision::nvfp4: return 0.5 + 1.0 / 16.0;  // one E4M3 scale per 16 elements
  }
  return 2.0;
}

}  // namespace dgx::catalog
