#include "dgx/llm/ops.hpp"

#include <doctest/doctest.h>

using namespace dgx::llm;

TEST_CASE("op keys name the op, its pass, precision and exact shape") {
  const Op gemm{.name = "fc1",
                .pass = Pass::wgrad,
                .precision = Precision::fp8,
                .shape = GemmShape{.m = 28672, .n = 4096, .k = 8192, .groups = 1, .accumulate_bytes = 2}};
  CHECK(gemm.key() == "fc1.wgrad fp8 m=28672 n=4096 k=8192 accumulate=2");
  const Op grouped{.name = "expert_fc1", .shape = GemmShape{.m = 1024, .n = 7168, .k = 4096, .groups = 4}};
  CHECK(grouped.key() == "expert_fc1.forward bf16 m=1024 n=7168 k=4096 groups=4");
  const Op attention{.name = "attention",
                     .pass = Pass::backward,
                     .shape = AttentionShape{.batch = 1,
                                             .heads = 8,
                                             .kv_heads = 2,
                                             .q_len = 4096,
                                             .kv_len = 8192,
                                             .head_dim = 128,
                                             .mask_fraction = 0.5,
                                             .steps = 2}};
  CHECK(attention.key() == "attention.backward bf16 b=1 h=8 kv=2 q=4096 k=8192 d=128 mask=0.5 steps=2");
  const Op scan{.name = "ssd_scan", .shape = ScanShape{.flops = 2e12, .bytes = 3e9, .tiles = 4096, .kernels = 5}};
  CHECK(scan.key() == "ssd_scan.forward flops=2e+12 bytes=3e+09 tiles=4096 kernels=5");
  const Op memory{.name = "swiglu", .shape = MemoryShape{.bytes = 1e9, .kernels = 1}};
  CHECK(memory.key() == "swiglu.forward bytes=1e+09 kernels=1");
  const Op collective{.name = "tp_all_gather_fc1",
                      .group = CommGroup::tp,
                      .shape = CollectiveShape{.collective = Collective::all_gather,
                                               .bytes = 6.7e7,
                                               .placement = GroupPlacement{.ranks = 4, .ranks_per_domain = 4}}};
  CHECK(collective.key() == "tp_all_gather_fc1 all_gather bytes=6.7e+07 ranks=4 local=4");
  CHECK(collective.is_communication());
  CHECK_FALSE(gemm.is_communication());
}

TEST_CASE("a recomputed op keeps the key of the original, so one measurement serves both") {
  Op op{.name = "proj", .shape = GemmShape{.m = 8, .n = 8, .k = 8}};
  const std::string key = op.key();
  op.recompute = true;
  CHECK(op.key() == key);
}
