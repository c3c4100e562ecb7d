#include "dgx/llm/kernels/op_timing.hpp"

#include <algorithm>
#include <sstream>

namespace dgx::llm::kernels {

std::string_view to_string(OpKind kind) {
  switch (kind) {
  case OpKind::gemm: return "gemm";
  case OpKind::attention: return "attention";
  case OpKind::memory: return "memory";
  }
  return "?";
}

std::string OpTiming::key() const {
  std::ostringstream out;
  out.precision(6);
  out << name << '.' << to_string(pass);
  switch (kind) {
  case OpKind::gemm:
    out << ' ' << precision << " m=" << gemm.m << " n=" << gemm.n << " k=" << gemm.k;
    if (gemm.groups != 1) {
      out << " groups=" << gemm.groups;
    }
    break;
  case OpKind::attention:
    out << ' ' << precision << " b=" << attention.batch << " h=" << attention.heads << " kv=" << attention.kv_heads
        << " q=" << attention.q_len << " k=" << attention.kv_len << " d=" << attention.head_dim
        << (attention.causal ? " causal" : " full");
    break;
  case OpKind::memory: out << " bytes=" << bytes; break;
  }
  return out.str();
}

double gemm_flops(const GemmDims& dims) {
  return 2.0 * double(dims.m) * double(dims.n) * double(dims.k) * double(dims.groups);
}

namespace {

/// Query–key pairs the mask leaves: top-left aligned causal, or all.
double unmasked_pairs(const AttentionDims& d) {
  const double q = double(d.q_len), k = double(d.kv_len);
  if (!d.causal) {
    return q * k;
  }
  if (q <= k) {
    return q * (q + 1) / 2;
  }
  return k * (k + 1) / 2 + (q - k) * k;
}

}  // namespace

double attention_flops(const AttentionDims& dims, bool backward) {
  const double forward = 4.0 * double(dims.head_dim) * double(dims.heads) * double(dims.batch) * unmasked_pairs(dims);
  return backward ? 2.5 * forward : forward;
}

double attention_bytes(const AttentionDims& dims, bool backward) {
  const double q = double(dims.batch * dims.q_len * dims.heads * dims.head_dim);
  const double kv = double(dims.batch * dims.kv_len * dims.kv_heads * dims.head_dim);
  const double stats = 4.0 * double(dims.batch * dims.heads * dims.q_len);
  // BF16 tensors: forward reads Q, K, V and writes O; backward reads Q, K, V, O, dO and writes dQ, dK, dV.
  return backward ? 2.0 * (4 * q + 4 * kv) + stats : 2.0 * (2 * q + 2 * kv) + stats;
}

double LayerTiming::model_tflops() const {
  const double seconds = step_seconds > 0 ? step_seconds : forward_seconds + backward_seconds;
  return seconds > 0 ? model_flops / seconds / 1e12 : 0.0;
}

}  // namespace dgx::llm::kernels
