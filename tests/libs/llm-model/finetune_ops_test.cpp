#include "dgx/llm/finetune_ops.hpp"

#include "catalog_fixtures.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace dgx::llm;
using dgx::llm::testing::catalog_model;
using dgx::llm::testing::catalog_system;

namespace {

FineTune lora_of(std::vector<LoraTarget> targets = {LoraTarget::qkv}) {
  FineTune f;
  f.method = FineTuneMethod::lora;
  f.lora.targets = std::move(targets);
  return f;
}

const Op* find(const std::vector<Op>& ops, std::string_view name, Pass pass) {
  const auto it =
      std::find_if(ops.begin(), ops.end(), [&](const Op& op) { return op.name == name && op.pass == pass; });
  return it == ops.end() ? nullptr : &*it;
}

const GemmShape& gemm(const std::vector<Op>& ops, std::string_view name, Pass pass) {
  const Op* op = find(ops, name, pass);
  REQUIRE_MESSAGE(op != nullptr, (std::string(name) + "." + std::string(to_string(pass))));
  return std::get<GemmShape>(op->shape);
}

OpList layer(const ShapeKey& shape, const FineTune& f, std::string_view model = "llama3.1-8b") {
  const ModelConfig m = catalog_model(model);
  const SystemProfile s = catalog_system("h100-sxm");
  OpList ops = transformer_layer_ops(m, s, shape);
  apply_finetune(ops, StepChunk::layer, m, s, shape, f);
  return ops;
}

}  // namespace

TEST_CASE("LoRA: frozen layers keep forward and dgrad GEMMs and lose every weight gradient") {
  const ShapeKey shape{.tp = 1, .cp = 1, .ep = 1, .mbs = 1, .seq_len = 4096};
  const OpList ops = layer(shape, lora_of({}));
  for (const std::string_view name : {"qkv", "proj", "fc1", "fc2"}) {
    CAPTURE(name);
    CHECK(find(ops.forward, name, Pass::forward) != nullptr);
    CHECK(find(ops.backward, name, Pass::dgrad) != nullptr);
    CHECK(find(ops.backward, name, Pass::wgrad) == nullptr);
  }
}

TEST_CASE("LoRA on QKV at TP 1: down and up projections at rank 16, forward and backward, in BF16") {
  const ShapeKey shape{.tp = 1, .cp = 1, .ep = 1, .mbs = 1, .seq_len = 4096, .precision = Precision::fp8};
  const OpList ops = layer(shape, lora_of());
  const GemmShape& down = gemm(ops.forward, "qkv_lora_a", Pass::forward);
  CHECK((down.m == 4096 && down.n == 16 && down.k == 4096));
  const GemmShape& up = gemm(ops.forward, "qkv_lora_b", Pass::forward);
  CHECK((up.m == 4096 && up.n == 6144 && up.k == 16));
  CHECK(up.accumulate_bytes > 0);  // accumulated into the base output in the GEMM
  CHECK(find(ops.forward, "qkv_lora_b", Pass::forward)->precision == Precision::bf16);
  const GemmShape& up_dgrad = gemm(ops.backward, "qkv_lora_b", Pass::dgrad);
  CHECK((up_dgrad.m == 4096 && up_dgrad.n == 16 && up_dgrad.k == 6144));
  CHECK(gemm(ops.backward, "qkv_lora_b", Pass::wgrad).m == 6144);
  CHECK(gemm(ops.backward, "qkv_lora_a", Pass::wgrad).n == 4096);
  CHECK(gemm(ops.backward, "qkv_lora_a", Pass::dgrad).k == 16);
  CHECK(find(ops.forward, "proj_lora_a", Pass::forward) == nullptr);
}

TEST_CASE("LoRA under TP: column targets shard the rank and the output, row targets the input, tiny all-reduces") {
  const ShapeKey shape{.tp = 4, .cp = 1, .ep = 1, .mbs = 1, .seq_len = 4096};
  const OpList ops = layer(shape, lora_of({LoraTarget::qkv, LoraTarget::fc2}));
  CHECK(gemm(ops.forward, "qkv_lora_a", Pass::forward).n == 4);
  CHECK(gemm(ops.forward, "qkv_lora_b", Pass::forward).n == 6144 / 4);
  CHECK(gemm(ops.forward, "fc2_lora_a", Pass::forward).k == 14336 / 4);
  CHECK(gemm(ops.forward, "fc2_lora_b", Pass::forward).m == 4096 / 4);  // on the sequence-parallel shard
  const Op* reduce = find(ops.forward, "tp_all_reduce_fc2_lora", Pass::forward);
  REQUIRE(reduce != nullptr);
  CHECK(std::get<CollectiveShape>(reduce->shape).bytes == doctest::Approx(4096.0 * 16 * 2));
  // The re-gather of QKV's input survives (the down projection's weight gradient reads it); fc1's does not.
  CHECK(find(ops.backward, "tp_all_gather_qkv_wgrad", Pass::backward) != nullptr);
  CHECK(find(ops.backward, "tp_all_gather_fc1_wgrad", Pass::backward) == nullptr);
}

TEST_CASE("LoRA in FP8: casts of frozen layers write no transposed copy") {
  const ShapeKey shape{.tp = 1, .cp = 1, .ep = 1, .mbs = 1, .seq_len = 4096, .precision = Precision::fp8};
  const ModelConfig m = catalog_model("llama3.1-8b");
  const OpList sft = transformer_layer_ops(m, catalog_system("h100-sxm"), shape);
  const OpList frozen = layer(shape, lora_of());
  const auto bytes = [](const OpList& ops, std::string_view name) {
    return std::get<MemoryShape>(find(ops.backward, name, Pass::backward)->shape).bytes;
  };
  CHECK(bytes(frozen, "cast_fc2_grad") == doctest::Approx(bytes(sft, "cast_fc2_grad") * 3.0 / 4.0));
}

TEST_CASE("LoRA: the frozen embedding has no backward, the LM head no weight gradient") {
  const ModelConfig m = catalog_model("llama3.1-8b");
  const SystemProfile s = catalog_system("h100-sxm");
  const ShapeKey shape{.tp = 2, .cp = 1, .ep = 1, .mbs = 1, .seq_len = 4096};
  OpList embedding = embedding_ops(m, s, shape);
  apply_finetune(embedding, StepChunk::embedding, m, s, shape, lora_of());
  CHECK(embedding.backward.empty());
  CHECK_FALSE(embedding.forward.empty());
  OpList output = output_ops(m, s, shape);
  apply_finetune(output, StepChunk::output, m, s, shape, lora_of());
  CHECK(find(output.backward, "lm_head", Pass::dgrad) != nullptr);
  CHECK(find(output.backward, "lm_head", Pass::wgrad) == nullptr);
}

TEST_CASE("full recompute reruns the adapters' forward with the layer's") {
  const ShapeKey shape{.tp = 1, .cp = 1, .ep = 1, .mbs = 1, .seq_len = 4096, .recompute = Recompute::full};
  const OpList ops = layer(shape, lora_of());
  const Op* rerun = find(ops.backward, "qkv_lora_b", Pass::forward);
  REQUIRE(rerun != nullptr);
  CHECK(rerun->recompute);
}

TEST_CASE("packed samples attend within themselves: one attention per sample, for SFT and LoRA alike") {
  FineTune sft;
  sft.avg_tokens_per_sample = 512;
  const ShapeKey shape{.tp = 1, .cp = 1, .ep = 1, .mbs = 2, .seq_len = 4096};
  const OpList ops = layer(shape, sft);
  const auto& attention = std::get<AttentionShape>(find(ops.forward, "attention", Pass::forward)->shape);
  CHECK(attention.batch == 16);
  CHECK(attention.q_len == 512);
  CHECK(attention.kv_len == 512);
  CHECK(attention.mask_fraction == doctest::Approx(0.5 * (1 + 128.0 / 512)));
  CHECK(std::get<AttentionShape>(find(ops.backward, "attention", Pass::backward)->shape).batch == 16);
  sft.packed = false;  // padded: the whole padded sequence is computed
  const OpList padded = layer(shape, sft);
  CHECK(std::get<AttentionShape>(find(padded.forward, "attention", Pass::forward)->shape).q_len == 4096);
}
