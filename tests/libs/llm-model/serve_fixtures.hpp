// Shared by the serving-model tests: a configuration of Llama 3.1 70B in FP8 with an FP8 KV cache.
#pragma once

#include "dgx/llm/serve_config.hpp"

namespace dgx::llm::testing {

inline ServeConfig serve_config(ServeLayout layout, int isl, int osl, int concurrency,
                                Precision precision = Precision::fp8) {
  ServeConfig c;
  c.layout = layout;
  c.precision = precision;
  c.kv_precision = precision == Precision::bf16 ? Precision::bf16 : Precision::fp8;
  c.isl = isl;
  c.osl = osl;
  c.concurrency = concurrency;
  return c;
}

}  // namespace dgx::llm::testing
