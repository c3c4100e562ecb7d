// Layer specs the tests share: the calibration models at their published shapes, and tiny layers for the CPU
// reference and the GPU comparisons.
#pragma once

#include "dgx/llm/kernels/layer_spec.hpp"

namespace dgx::llm::testing {

inline kernels::LayerSpec make_spec(std::int64_t hidden, std::int64_t ffn, std::int64_t heads, std::int64_t kv,
                                    std::int64_t seq, std::int64_t mbs = 1) {
  kernels::LayerSpec s;
  s.arch.hidden = hidden;
  s.arch.ffn = ffn;
  s.arch.heads = heads;
  s.arch.kv_groups = kv;
  s.seq_len = seq;
  s.micro_batch = mbs;
  return s;
}

/// Llama 3.1 8B: L32 h4096 ffn14336 heads32 kv8, seq 8192.
inline kernels::LayerSpec llama8b() { return make_spec(4096, 14336, 32, 8, 8192); }
/// Llama 3.1 70B: L80 h8192 ffn28672 heads64 kv8, seq 8192.
inline kernels::LayerSpec llama70b() { return make_spec(8192, 28672, 64, 8, 8192); }
/// Mixtral 8x7B: h4096 ffn14336 heads32 kv8, 8 experts, top-2, seq 4096.
inline kernels::LayerSpec mixtral() {
  kernels::LayerSpec s = make_spec(4096, 14336, 32, 8, 4096);
  s.arch.experts = 8;
  s.arch.top_k = 2;
  return s;
}

}  // namespace dgx::llm::testing
