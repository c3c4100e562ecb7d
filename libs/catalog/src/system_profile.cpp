#include "dgx/catalog/system_profile.hpp"

#include <cstddef>

namespace dgx::catalog {

double SystemProfile::dense_peak_flops(Precision precision) const {
  if ((precision == Precision::mxfp8 || precision == Precision::nvfp4) && !block_scaled_formats) {
    return 0;
  }
  switch (peak_column(precision)) {
  case PeakColumn::bf16: return peak_bf16_tflops * 1e12;
  case PeakColumn::fp8: return peak_fp8_tflops * 1e12;
  case PeakColumn::fp4: return peak_fp4_tflops * 1e12;
  }
  return 0;
}

double SystemProfile::gemm_ceiling(Precision precision) const {
  // The checkpoint formats have no row of their own: they take the kernels of the GEMM precision of their peak.
  const Precision table = is_gemm_precision(precision)                ? precision
                          : peak_column(precision) == PeakColumn::fp8 ? Precision::fp8
                          : peak_column(precision) == PeakColumn::fp4 ? Precision::nvfp4
                                                                      : Precision::bf16;
  const double kernels = efficiency.gemm_software.at(static_cast<std::size_t>(table));
  switch (peak_column(precision)) {
  case PeakColumn::bf16: return efficiency.gemm_ceiling_bf16 * kernels;
  case PeakColumn::fp8: return efficiency.gemm_ceiling_fp8 * kernels;
  case PeakColumn::fp4: return efficiency.gemm_ceiling_fp4 * kernels;
  }
  return 0;
}

bool SystemProfile::supports(Precision precision) const { return dense_peak_flops(precision) > 0; }

double SystemProfile::hbm_bytes() const { return hbm_gib * 1024.0 * 1024.0 * 1024.0; }

}  // namespace dgx::catalog
