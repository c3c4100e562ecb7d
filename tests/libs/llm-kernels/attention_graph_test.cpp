// The cuDNN attention graphs built and finalized on the host, without a device: cuDNN checks every node's shapes
// and types here, so a wrong stride or dimension in the graph construction fails in CI, not on the GPU machine.
#include <doctest/doctest.h>

#include "dgx/llm/cuda/attention.hpp"
#include "dgx/llm/cuda/error.hpp"

#include <cstdint>
#include <string>

using namespace dgx::llm::cuda;

TEST_CASE("the forward and backward graphs of a Llama 3.1 70B layer's attention build (causal GQA, fused QKV rows)") {
  const AttentionConfig c{.batch = 1,
                          .q_heads = 64,
                          .kv_heads = 8,
                          .q_len = 8192,
                          .kv_len = 8192,
                          .head_dim = 128,
                          .causal = true,
                          .q_stride = std::int64_t{80} * 128,
                          .kv_stride = std::int64_t{80} * 128,
                          .o_stride = std::int64_t{64} * 128};
  CHECK_NOTHROW(check_attention_graphs(c));
}

TEST_CASE("multi-head, unmasked and context-parallel ring shapes build") {
  CHECK_NOTHROW(check_attention_graphs(
      AttentionConfig{.batch = 2, .q_heads = 8, .kv_heads = 8, .q_len = 512, .kv_len = 512, .head_dim = 64}));
  CHECK_NOTHROW(check_attention_graphs(AttentionConfig{.batch = 1,
                                                       .q_heads = 8,
                                                       .kv_heads = 1,
                                                       .q_len = 4096,
                                                       .kv_len = 2048,
                                                       .head_dim = 128,
                                                       .causal = false,
                                                       .q_stride = std::int64_t{10} * 128,
                                                       .kv_stride = std::int64_t{2} * 128}));
}

TEST_CASE("FP8 attention and impossible head counts are refused with the configuration named") {
  try {
    check_attention_graphs(AttentionConfig{
        .batch = 1, .q_heads = 8, .kv_heads = 8, .q_len = 128, .kv_len = 128, .head_dim = 64, .fp8 = true});
    FAIL("expected FP8 attention to be refused");
  } catch (const Error& e) {
    CHECK(e.kind() == Error::Kind::unsupported);
    CHECK(std::string(e.what()).find("causal MHA SDPA fp8 b=1 hq=8 hkv=8 s_q=128 s_kv=128 d=64") == 0);
  }
  CHECK_THROWS_AS(check_attention_graphs(AttentionConfig{
                      .batch = 1, .q_heads = 6, .kv_heads = 4, .q_len = 128, .kv_len = 128, .head_dim = 64}),
                  Error);
}
