// Shared by the serving-model tests: a configuration of Llama 3.1 70B in FP8 with an FP8 KV cache.
#pragma once

#include "dgx/llm/serve_config.hpp"

namespace dgx::llm::testing {

/// A configuration of the physical model: these tests check its mechanisms, so the engine's calibration (fitted to
/// measured rows, serve_engine_test.cpp and serve_model_test.cpp check it) stays off.
inline ServeConfig serve_config(ServeLayout layout, int isl, int osl, int concurrency,
                                Precision precision = Precision::fp8) {
  ServeConfig c;
  c.engine_calibration = false;
  c.layout = layout;
  c.precision = precision;
  c.kv_precision = precision == Precision::bf16 ? Precision::bf16 : Precision::fp8;
  c.isl = isl;
  c.osl = osl;
  c.concurrency = concurrency;
  return c;
}

}  // namespace dgx::llm::testing
