#include <doctest/doctest.h>

#include "dgx/llm/kernels/op_timing.hpp"

using namespace dgx::llm::kernels;

namespace {

OpTiming op(const char* name, Pass pass, OpKind kind, const char* precision = "bf16") {
  OpTiming t;
  t.name = name;
  t.pass = pass;
  t.kind = kind;
  t.precision = precision;
  return t;
}

}  // namespace

TEST_CASE("an op's key names it, its pass, its precision and its exact shape") {
  OpTiming gemm = op("fc1", Pass::wgrad, OpKind::gemm, "fp8");
  gemm.gemm = GemmDims{57344, 8192, 8192, 1};
  CHECK(gemm.key() == "fc1.wgrad fp8 m=57344 n=8192 k=8192");
  gemm.gemm.groups = 8;
  CHECK(gemm.key() == "fc1.wgrad fp8 m=57344 n=8192 k=8192 groups=8");

  OpTiming attention = op("attention", Pass::backward, OpKind::attention);
  attention.attention = AttentionDims{1, 64, 8, 8192, 8192, 128, true};
  CHECK(attention.key() == "attention.backward bf16 b=1 h=64 kv=8 q=8192 k=8192 d=128 causal");

  OpTiming memory = op("swiglu", Pass::forward, OpKind::memory);
  memory.bytes = 1.5e9;
  CHECK(memory.key() == "swiglu.forward bytes=1.5e+09");
}

TEST_CASE("GEMM FLOPs are 2mnk per group, attention counts the unmasked pairs, backward 2.5x") {
  CHECK(gemm_flops(GemmDims{8192, 8192, 8192, 1}) == doctest::Approx(2.0 * 8192.0 * 8192.0 * 8192.0));
  CHECK(gemm_flops(GemmDims{2, 3, 4, 5}) == 240.0);
  const AttentionDims causal{1, 2, 1, 4, 4, 8, true};
  CHECK(attention_flops(causal, false) == 4.0 * 8 * 2 * 10);  // 4·d·heads·(1+2+3+4)
  CHECK(attention_flops(causal, true) == 2.5 * attention_flops(causal, false));
  AttentionDims full = causal;
  full.causal = false;
  full.kv_len = 2;
  CHECK(attention_flops(full, false) == 4.0 * 8 * 2 * 8);
  AttentionDims tall = causal;  // more queries than keys: the last q - k rows see every key
  tall.q_len = 6;
  CHECK(attention_flops(tall, false) == 4.0 * 8 * 2 * (10 + 2 * 4));
  CHECK(attention_bytes(causal, true) > attention_bytes(causal, false));
}

TEST_CASE("model TFLOP/s uses the step time when measured, else the sum of the ops") {
  LayerTiming t;
  t.model_flops = 3e12;
  t.forward_seconds = 1.0;
  t.backward_seconds = 2.0;
  CHECK(t.model_tflops() == doctest::Approx(1.0));
  t.step_seconds = 1.5;
  CHECK(t.model_tflops() == doctest::Approx(2.0));
  OpTiming one;
  one.flops = 2e12;
  one.bytes = 4e9;
  one.seconds = 2.0;
  CHECK(one.tflops() == doctest::Approx(1.0));
  CHECK(one.bandwidth() == doctest::Approx(2e9));
}
