/*
 * Properties of the numeric formats named by dgx_precision. Header-only and compiled into each side, so these
 * helpers are not part of the binary interface; the enumeration values are.
 */
#ifndef DGX_PRECISION_H
#define DGX_PRECISION_H

#include <string.h>

#include "abi/v1.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dgx_precision_props {
  const char* name;      /* the name users type: "bf16", "fp8_e4m3", ... */
  uint32_t storage_bits; /* bits per stored element (TF32 is stored in 32) */
  uint32_t exponent_bits;
  uint32_t mantissa_bits; /* explicit fraction bits */
  double max_finite;      /* largest finite element value */
  uint32_t block_size;    /* elements sharing one scale factor; 0: per-tensor scaling or none */
} dgx_precision_props;

/* Returns the properties of `precision`, or a zeroed struct with name NULL for an unknown value. */
static inline dgx_precision_props dgx_precision_properties(dgx_precision precision) {
  dgx_precision_props props = {NULL, 0, 0, 0, 0.0, 0};
  switch (precision) {
  case DGX_PRECISION_FP32:
    props.name = "fp32";
    props.storage_bits = 32;
    props.exponent_bits = 8;
    props.mantissa_bits = 23;
    props.max_finite = 3.4028234663852886e38;
    break;
  case DGX_PRECISION_TF32:
    props.name = "tf32";
    props.storage_bits = 32;
    props.exponent_bits = 8;
    props.mantissa_bits = 10;
    props.max_finite = 3.4011621342146535e38;
    break;
  case DGX_PRECISION_FP16:
    props.name = "fp16";
    props.storage_bits = 16;
    props.exponent_bits = 5;
    props.mantissa_bits = 10;
    props.max_finite = 65504.0;
    break;
  case DGX_PRECISION_BF16:
    props.name = "bf16";
    props.storage_bits = 16;
    props.exponent_bits = 8;
    props.mantissa_bits = 7;
    props.max_finite = 3.3895313892515355e38;
    break;
  case DGX_PRECISION_FP8_E4M3:
    props.name = "fp8_e4m3";
    props.storage_bits = 8;
    props.exponent_bits = 4;
    props.mantissa_bits = 3;
    props.max_finite = 448.0;
    break;
  case DGX_PRECISION_FP8_E5M2:
    props.name = "fp8_e5m2";
    props.storage_bits = 8;
    props.exponent_bits = 5;
    props.mantissa_bits = 2;
    props.max_finite = 57344.0;
    break;
  case DGX_PRECISION_MXFP8:
    props.name = "mxfp8";
    props.storage_bits = 8;
    props.exponent_bits = 4;
    props.mantissa_bits = 3;
    props.max_finite = 448.0;
    props.block_size = 32;
    break;
  case DGX_PRECISION_NVFP4:
    props.name = "nvfp4";
    props.storage_bits = 4;
    props.exponent_bits = 2;
    props.mantissa_bits = 1;
    props.max_finite = 6.0;
    props.block_size = 16;
    break;
  default: break;
  }
  return props;
}

/* Parses a precision name as returned in dgx_precision_props.name; 0 when unknown. */
static inline dgx_precision dgx_precision_from_name(const char* name) {
  dgx_precision candidate;
  if (name == NULL) {
    return 0;
  }
  for (candidate = DGX_PRECISION_FP32; candidate <= DGX_PRECISION_NVFP4; ++candidate) {
    if (strcmp(dgx_precision_properties(candidate).name, name) == 0) {
      return candidate;
    }
  }
  return 0;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DGX_PRECISION_H */
