// FP8 per-tensor scaling and casting. Each cast tensor has an Fp8Scale in device memory: the GEMMs read its
// scale_inv, the casts read its scale and record the tensor's amax, so no step needs the host.
//   current scaling: amax of this tensor first (fp8_amax), then the cast computes scale = max_finite / amax;
//   delayed scaling: the cast uses the scale from the amax history and records this amax; fp8_update_scales,
//   once per step, pushes the amaxes into the histories and derives the next scales (Transformer Engine's
//   DelayedScaling with the "max" algorithm and margin 0).
#pragma once

#include "dgx/llm/cuda/kernels.hpp"

#include <cuda_fp8.h>

#include <cstddef>
#include <cstdint>

namespace dgx::llm::cuda {

inline constexpr int kMaxAmaxHistory = 1024;

struct Fp8Scale {
  float scale;       ///< multiply before casting
  float scale_inv;   ///< dequantize: what the GEMM multiplies by
  float amax;        ///< amax of the current step (atomic max of |x|)
  float max_finite;  ///< 448 (E4M3) or 57344 (E5M2)
  std::int32_t history_len;
  std::int32_t position;
  float history[kMaxAmaxHistory];
};

/// Device addresses of the fields of a device-resident Fp8Scale: pointer arithmetic only, never dereferenced on
/// the host.
inline float* amax_of(Fp8Scale* s) {
  return reinterpret_cast<float*>(reinterpret_cast<char*>(s) + offsetof(Fp8Scale, amax));
}
inline const float* scale_inv_of(const Fp8Scale* s) {
  return reinterpret_cast<const float*>(reinterpret_cast<const char*>(s) + offsetof(Fp8Scale, scale_inv));
}

/// Initializes `count` (at most 64) scales: scale 1, an empty history of `history_len` steps, and the largest
/// value of E5M2 where bit i of `e5m2_mask` is set, of E4M3 elsewhere.
void fp8_init_scales(Fp8Scale* scales, int count, std::uint64_t e5m2_mask, int history_len, cudaStream_t stream);
/// Current scaling, first pass: scale->amax = max |x|.
void fp8_amax(const bf16* x, std::int64_t n, Fp8Scale* scale, cudaStream_t stream);
/// Casts x [rows, cols] to FP8 (E4M3, or E5M2 for gradients): `out` [rows, cols] and/or `out_t` [cols, rows]
/// (either may be null). current = true: the scale comes from scale->amax (fp8_amax before); false: from
/// scale->scale, and the cast records the amax.
void fp8_cast_transpose(const bf16* x, std::int64_t rows, std::int64_t cols, void* out, void* out_t, bool e5m2,
                        Fp8Scale* scale, bool current, cudaStream_t stream);
/// Delayed scaling, end of step: history ← amax, amax ← 0, scale ← max_finite / max(history).
void fp8_update_scales(Fp8Scale* scales, int count, cudaStream_t stream);

}  // namespace dgx::llm::cuda
