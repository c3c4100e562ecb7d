#include "dgx/llm/layer_ops.hpp"
#include "dgx/llm/layout.hpp"

#include "catalog_fixtures.hpp"

#include <doctest/doctest.h>

using namespace dgx::llm;
using dgx::llm::testing::catalog_model;
using dgx::llm::testing::catalog_system;
using dgx::llm::testing::train;

namespace {
std::string error_of(std::string_view model_name, std::string_view system_name, int gpus, const TrainConfig& t) {
  const auto r = resolve_layout(catalog_model(model_name), catalog_system(system_name), gpus, t);
  return r ? std::string("(valid)") : r.error().message;
}
}  // namespace

TEST_CASE("a valid layout resolves dp, microbatches and the stage split") {
  const auto r = resolve_layout(catalog_model("llama3.1-70b"), catalog_system("h100-sxm"), 512,
                                train({.tp = 4, .pp = 4, .cp = 2, .vp = 5}, 1, 1024, 8192));
  REQUIRE(r.has_value());
  CHECK(r->dp == 16);
  CHECK(r->microbatches == 64);
  CHECK(r->stages.first == 20);
  CHECK(r->stages.last == 20);
}

TEST_CASE("every invalid layout names its reason") {
  CHECK(error_of("llama3.1-70b", "h100-sxm", 128, train({.tp = 16}, 1, 128, 8192)) ==
        "TP 16 exceeds the NVLink domain of 8 on h100-sxm");
  CHECK(error_of("llama3.1-70b", "h100-sxm", 64, train({.tp = 1}, 1, 100, 8192)) ==
        "gbs 100 is not divisible by dp×mbs = 64");
  CHECK(error_of("llama3.1-70b", "h100-sxm", 48, train({.tp = 3}, 1, 48, 8192)) == "heads 64 not divisible by tp 3");
  // Under the default split, chunks of unequal layers are a custom Megatron layout; more chunks than layers are not.
  CHECK(error_of("llama3.1-70b", "h100-sxm", 64, train({.tp = 4, .pp = 4, .vp = 21}, 1, 64, 8192))
            .find("vp 21 requires layers/pp divisible by vp") == 0);
  TrainConfig even = train({.tp = 1, .pp = 4, .vp = 5}, 1, 128, 8192);
  even.pipeline_split = PipelineSplit::even;
  CHECK(error_of("llama3.1-8b", "h100-sxm", 128, even).find("vp 5 requires layers/pp divisible by vp") == 0);
  CHECK(error_of("llama3.1-70b", "h100-sxm", 100, train({.tp = 4, .pp = 4, .cp = 2}, 1, 100, 8192)) ==
        "gpus 100 not divisible by tp×pp×cp = 32");
  CHECK(error_of("llama3.1-70b", "a100-sxm-80gb", 64, train({.tp = 8}, 1, 64, 8192, Precision::fp8)) ==
        "a100-sxm-80gb does not support fp8 GEMMs");
  CHECK(error_of("llama3.1-70b", "h100-sxm", 64, train({.tp = 8, .ep = 2}, 1, 64, 8192)) ==
        "ep 2 requires a mixture-of-experts model; llama3.1-70b is dense");
  CHECK(error_of("mixtral-8x7b", "h100-sxm", 64, train({.ep = 3}, 1, 64, 4096)) == "experts 8 not divisible by ep 3");
  // EP folds over tp·cp·dp (MoE parallel folding): TP 2 EP 8 on 8 GPUs is valid with etp 1 (below); an explicit
  // etp 2 needs 16 ranks per stage.
  CHECK(error_of("mixtral-8x7b", "h100-sxm", 8, train({.tp = 2, .ep = 8, .etp = 2}, 1, 64, 4096)) ==
        "ep 8 × etp 2 = 16 does not divide tp×cp×dp = 8 (the experts fold their EP and expert-TP groups over the TP, "
        "CP and DP ranks of a stage)");
  CHECK(error_of("mixtral-8x7b", "h100-sxm", 8, train({.tp = 2, .pp = 2, .ep = 8}, 1, 64, 4096)) ==
        "ep 8 does not divide tp×cp×dp = 4 (the experts fold their EP groups over the TP, CP and DP ranks of a stage)");
  CHECK(error_of("mixtral-8x7b", "h100-sxm", 16, train({.tp = 2, .ep = 2, .etp = 16}, 1, 64, 4096)) ==
        "etp 16 exceeds the NVLink domain of 8 on h100-sxm");
  CHECK(error_of("llama3.1-8b", "h100-sxm", 24, train({.cp = 3}, 1, 24, 8192))
            .find("seq_len 8192 not divisible by 2×cp = 6") == 0);
  CHECK(error_of("llama3.1-8b", "h100-sxm", 64, train({.tp = 1, .pp = 64}, 1, 64, 8192)) ==
        "pp 64 exceeds the 32 layers");
  CHECK(error_of("llama3.1-8b", "h100-sxm", 24, train({.tp = 1, .pp = 24}, 1, 24, 8192))
            .find("layers 32 cannot be split over pp 24") == 0);
  CHECK(error_of("llama3.1-70b", "h100-sxm", 64, train({.tp = 8, .pp = 1, .vp = 2}, 1, 64, 8192)) ==
        "vp 2 requires pp > 1");
  CHECK(error_of("llama3.1-70b", "h100-sxm", 64, train({.tp = 8, .pp = 4, .vp = 5}, 1, 7, 8192)) ==
        "gbs 7 is not divisible by dp×mbs = 2");
  CHECK(error_of("llama3.1-70b", "h100-sxm", 64, train({.tp = 8, .pp = 4, .vp = 5}, 1, 12, 8192))
            .find("the interleaved schedule (vp 5) needs the microbatches per pipeline (6) divisible by pp 4") == 0);
  CHECK(error_of("llama3.1-70b", "h100-sxm", 0, train({}, 1, 8, 8192)).find("must all be at least 1 (got gpus 0") !=
        std::string::npos);
}

TEST_CASE("uneven stages give the first and the last stage the shortfall (Llama 3.1 405B over pp 8)") {
  const auto stages = split_layers(126, 8);
  REQUIRE(stages.has_value());
  CHECK(stages->first == 15);
  CHECK(stages->middle == 16);
  CHECK(stages->last == 15);
  CHECK(stages->first + 6 * stages->middle + stages->last == 126);
  const auto odd = split_layers(80, 3);
  REQUIRE(odd.has_value());
  CHECK(odd->first + odd->middle + odd->last == 80);
  CHECK(odd->last == 26);
  // Megatron accepts any first / last layer count: 80 over 7 as 10 + 5 x 12 + 10; DeepSeek-V3's 61 over 16.
  const auto seven = split_layers(80, 7);
  REQUIRE(seven.has_value());
  CHECK(seven->first == 10);
  CHECK(seven->last == 10);
  const auto deepseek = split_layers(61, 16);
  REQUIRE(deepseek.has_value());
  CHECK(deepseek->first + 14 * deepseek->middle + deepseek->last == 61);
  CHECK(deepseek->last == 2);
  CHECK_FALSE(split_layers(32, 24).has_value());  // 2 per middle stage would leave the edges none
}

TEST_CASE("recompute names parse and print") {
  for (const Recompute r : kAllRecomputes) {
    CHECK(parse_recompute(to_string(r)) == r);
  }
  CHECK_FALSE(parse_recompute("partial").has_value());
}

TEST_CASE("MoE parallel folding: EP and expert TP are drawn from TP x CP x DP") {
  // Qwen3-235B at TP 2 PP 8 EP 32 on 256 H100 (the Megatron-Bridge 26.04.01 recipe): 32 ranks per stage, EP over
  // all of them, expert TP 1, one expert replica.
  TrainConfig qwen = train({.tp = 2, .pp = 8, .vp = 4, .ep = 32, .etp = 1}, 1, 8192, 4096);
  const auto r = resolve_layout(catalog_model("qwen3-235b-a22b"), catalog_system("h100-sxm"), 256, qwen);
  REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().message));
  CHECK(r->dp == 16);
  CHECK(r->layout.etp == 1);
  CHECK(r->edp == 1);
  // Left automatic, expert TP is Megatron's default (tp) where that folds, else the widest divisor of tp that does.
  qwen.layout.etp = kAutoEtp;
  CHECK(resolve_layout(catalog_model("qwen3-235b-a22b"), catalog_system("h100-sxm"), 256, qwen)->layout.etp == 1);
  const auto mixtral = [](int gpus, Layout layout) {
    return resolve_layout(catalog_model("mixtral-8x7b"), catalog_system("h100-sxm"), gpus, train(layout, 1, 64, 4096));
  };
  CHECK(mixtral(16, {.tp = 2, .ep = 8})->layout.etp == 2);
  CHECK(mixtral(16, {.tp = 2, .ep = 8})->edp == 1);
  CHECK(mixtral(8, {.tp = 2, .ep = 8})->layout.etp == 1);
  CHECK(mixtral(64, {.tp = 4, .ep = 4})->edp == 4);
  // Dense models have no expert grid: their edp is their dp·cp.
  const auto dense = resolve_layout(catalog_model("llama3.1-8b"), catalog_system("h100-sxm"), 16,
                                    train({.tp = 2, .cp = 2}, 1, 16, 8192));
  REQUIRE(dense.has_value());
  CHECK(dense->edp == 8);
}

TEST_CASE("recompute modules parse, print and are only a selective choice") {
  CHECK(parse_recompute_module("mla_up_proj") == RecomputeModule::mla_up_proj);
  CHECK_FALSE(parse_recompute_module("attention").has_value());
  CHECK(modules_label(module_bit(RecomputeModule::core_attn) | module_bit(RecomputeModule::mlp)) == "core_attn, mlp");
  CHECK(modules_label(0) == "none");
  ShapeKey shape{.recompute = Recompute::full, .recompute_modules = module_bit(RecomputeModule::mlp)};
  CHECK(shape.modules() == 0);
  shape.recompute = Recompute::selective;
  CHECK(shape.modules() == module_bit(RecomputeModule::mlp));
}

TEST_CASE("the expert all-to-all overlap needs an MoE model and a pipeline of one stage or interleaved") {
  TrainConfig t = train({.tp = 1, .pp = 2, .ep = 8}, 1, 64, 4096);
  t.ep_overlap = true;
  CHECK(error_of("mixtral-8x7b", "h100-sxm", 16, t)
            .find("ep_overlap (Megatron's overlap_moe_expert_parallel_comm) "
                  "needs pp 1 or an interleaved pipeline") == 0);
  t.layout.vp = 2;
  CHECK(error_of("mixtral-8x7b", "h100-sxm", 16, t) == "(valid)");
  TrainConfig dense = train({.tp = 8}, 1, 64, 8192);
  dense.ep_overlap = true;
  CHECK(error_of("llama3.1-70b", "h100-sxm", 64, dense).find("ep_overlap hides the expert all-to-all") == 0);
}

TEST_CASE("a layout the framework cannot express names the framework, the key and why") {
  const SystemProfile titan = apply_framework(catalog_system("h100-sxm"), find_framework("torchtitan").value());
  const auto error = [&](std::string_view model, const TrainConfig& t, int gpus, const SystemProfile& s) {
    const auto r = resolve_layout(catalog_model(model), s, gpus, t);
    return r ? std::string("(valid)") : r.error().message;
  };
  const std::string head = "framework torchtitan cannot express this configuration: ";
  CHECK(error("mixtral-8x7b", train({.ep = 8}, 1, 64, 4096), 8, titan)
            .find(head + "model mixtral-8x7b is a mixture-of-experts model") == 0);
  TrainConfig zero1 = train({.tp = 8}, 1, 64, 8192);  // distributed optimizer, the default
  CHECK(error("llama3.1-70b", zero1, 64, titan).find(head + "parallel.distributed_optimizer") == 0);
  zero1.fsdp = true;
  CHECK(error("llama3.1-70b", zero1, 64, titan) == "(valid)");
  TrainConfig offload = zero1;
  offload.offload_layers = 4;
  CHECK(error("llama3.1-70b", offload, 64, titan).find(head + "train.offload_layers 4") == 0);
  TrainConfig modules = zero1;
  modules.recompute = Recompute::selective;
  modules.recompute_modules = module_bit(RecomputeModule::mlp);
  CHECK(error("llama3.1-70b", modules, 64, titan).find(head + "train.recompute_modules mlp") == 0);
  const SystemProfile b200 = apply_framework(catalog_system("b200"), find_framework("torchtitan").value());
  TrainConfig mx = zero1;
  mx.precision = Precision::mxfp8;
  CHECK(error("llama3.1-70b", mx, 64, b200).find(head + "precision mxfp8") == 0);
  // Its looped pipeline schedule (Interleaved 1F1B) is expressible: vp is its stages per rank.
  TrainConfig looped = train({.tp = 8, .pp = 8, .vp = 2}, 4, 256, 8192, Precision::fp8);
  looped.fsdp = true;
  CHECK(error("llama3.1-405b", looped, 512, titan) == "(valid)");
  // A single replica needs no sharding: the default optimizer setting is fine there.
  CHECK(error("llama3.1-8b", train({.tp = 8}, 1, 8, 8192), 8, titan) == "(valid)");
}

TEST_CASE("a checkpoint format is no training precision: mxfp4 and fp8-block GEMMs are refused") {
  const ModelConfig m = dgx::llm::testing::catalog_model("llama3.1-8b");
  for (const Precision p : {Precision::mxfp4, Precision::fp8_block}) {
    const auto r = resolve_layout(m, dgx::llm::testing::catalog_system("b200"), 8,
                                  dgx::llm::testing::train(Layout{.tp = 1}, 1, 64, 4096, p));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().message.find("does not support") != std::string::npos);
  }
}
