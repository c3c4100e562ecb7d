/*
 * The dgx plugin ABI: include this header to write a plugin in C (or any language with a C FFI).
 * C++ authors include <dgx/sdk.hpp>, which wraps it.
 *
 * The current ABI is version 1.3 (abi/v1.h). Precision properties are in precision.h.
 */
#ifndef DGX_PLUGIN_H
#define DGX_PLUGIN_H

#include "abi/v1.h"
#include "precision.h"

/* The version a plugin built against this header implements. */
#define DGX_ABI_VERSION DGX_ABI_V1_3

#endif /* DGX_PLUGIN_H */
