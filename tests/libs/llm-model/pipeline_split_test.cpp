#include "dgx/llm/pipeline_split.hpp"

#include "dgx/llm/layout.hpp"

#include "catalog_fixtures.hpp"

#include <doctest/doctest.h>

using namespace dgx::llm;
using dgx::llm::testing::catalog_model;
using dgx::llm::testing::catalog_system;
using dgx::llm::testing::train;

TEST_CASE("auto splits evenly when pp and vp divide the layers") {
  const auto s = split_pipeline(80, 4, 5, PipelineSplit::automatic);
  REQUIRE(s.has_value());
  CHECK(s->split == PipelineSplit::even);
  CHECK(s->first == 20);
  CHECK(s->middle == 20);
  CHECK(s->last == 20);
}

TEST_CASE("Llama 3.1 405B's 126 layers split over PP 8 and 16 with VP by counting the embedding and the loss") {
  // NVIDIA's 405B recipes: (126 + 2) layers over pp·vp chunks (Megatron's account_for_*_in_pipeline_split).
  for (const auto& layout : {std::pair{8, 8}, std::pair{8, 4}, std::pair{16, 4}, std::pair{16, 8}}) {
    const int pp = layout.first, vp = layout.second;  // not a structured binding: clang 14 cannot CAPTURE one
    CAPTURE(pp);
    CAPTURE(vp);
    const auto s = split_pipeline(126, pp, vp, PipelineSplit::automatic);
    REQUIRE(s.has_value());
    CHECK(s->split == PipelineSplit::embedding_loss);
    CHECK(s->first == 128 / pp - 1);
    CHECK(s->last == 128 / pp - 1);
    CHECK(s->first + (pp - 2) * s->middle + s->last == 126);
  }
}

TEST_CASE("an explicit rule is kept, and says why it cannot split") {
  CHECK_FALSE(split_pipeline(126, 8, 8, PipelineSplit::even).has_value());
  CHECK_FALSE(split_pipeline(126, 8, 8, PipelineSplit::uneven).has_value());  // 15 layers over 8 chunks
  const auto uneven = split_pipeline(126, 8, 1, PipelineSplit::uneven);
  REQUIRE(uneven.has_value());
  CHECK(uneven->first == 15);
  CHECK(uneven->middle == 16);
  CHECK_FALSE(split_pipeline(80, 4, 1, PipelineSplit::embedding_loss).has_value());  // 82 over 4
  const auto r = resolve_layout(catalog_model("llama3.1-405b"), catalog_system("h100-sxm"), 1024, [] {
    TrainConfig t = train({.tp = 8, .pp = 8, .cp = 2, .vp = 8}, 1, 512, 8192, Precision::fp8);
    t.pipeline_split = PipelineSplit::even;
    return t;
  }());
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().message.find("layers 126 cannot be split over pp 8 (pipeline_split even needs") == 0);
}

TEST_CASE("the published 405B layout resolves under the default split") {
  const auto r = resolve_layout(catalog_model("llama3.1-405b"), catalog_system("h100-sxm"), 1024,
                                train({.tp = 8, .pp = 8, .cp = 2, .vp = 8}, 1, 512, 8192, Precision::fp8));
  REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().message));
  CHECK(r->stages.split == PipelineSplit::embedding_loss);
  CHECK(r->stages.first == 15);
  CHECK(r->microbatches == 64);
}

TEST_CASE("pipeline split names parse and print") {
  for (const PipelineSplit s : kAllPipelineSplits) {
    CHECK(parse_pipeline_split(to_string(s)) == s);
  }
  CHECK(to_string(PipelineSplit::automatic) == "auto");
  CHECK_FALSE(parse_pipeline_split("balanced").has_value());
}

TEST_CASE("DeepSeek-V3's published layouts resolve: custom chunks where no standard split fits") {
  // Megatron-Bridge's DeepSeek-V3 recipes: PP 16; PP 8 x VP 4 ("Et|(tt|)*30mL"); PP 4 x VP 4; PP 2 x VP 8.
  const auto check = [](int pp, int vp, PipelineSplit expected) {
    CAPTURE(pp);
    CAPTURE(vp);
    const int gpus = 256;
    const auto r = resolve_layout(catalog_model("deepseek-v3"), catalog_system("gb200-nvl72"), gpus,
                                  train({.tp = 1, .pp = pp, .vp = vp, .ep = 64 / pp * 2}, 1, 2048, 4096));
    REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().message));
    CHECK(r->stages.split == expected);
    CHECK(r->stages.first + (pp - 2) * r->stages.middle + r->stages.last == 61);
  };
  check(16, 1, PipelineSplit::uneven);
  check(8, 4, PipelineSplit::custom);
  check(4, 4, PipelineSplit::custom);
  check(2, 8, PipelineSplit::custom);
  CHECK_FALSE(split_pipeline(61, 4, 4, PipelineSplit::automatic).has_value());  // the explorer's standard splits
  CHECK_FALSE(split_pipeline(61, 8, 16, PipelineSplit::custom).has_value());    // 8 layers cannot fill 16 chunks
}
