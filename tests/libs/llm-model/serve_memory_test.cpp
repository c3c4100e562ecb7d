#include "dgx/llm/serve_memory.hpp"

#include "catalog_fixtures.hpp"

#include <doctest/doctest.h>

using namespace dgx::llm;
using namespace dgx::llm::testing;

namespace {
constexpr double kGB = 1e9;
}

TEST_CASE("FP8 weights take a byte per linear parameter, embedding and LM head stay BF16") {
  const ModelConfig m = catalog_model("llama3.1-70b");
  // 68.5e9 linear parameters + 2 x 1.05e9 BF16 embedding / LM head, split over two GPUs.
  const double tp2 = serve_weight_bytes(m, {.layout = {.tp = 2}, .precision = Precision::fp8});
  CHECK(tp2 / kGB == doctest::Approx(36.3).epsilon(0.01));
  const double bf16 = serve_weight_bytes(m, {.layout = {.tp = 2}, .precision = Precision::bf16});
  CHECK(bf16 / kGB == doctest::Approx(70.6).epsilon(0.01));
  // Two stages: the fullest holds 40 layers and the larger of the embedding and the LM head.
  const double pp2 = serve_weight_bytes(m, {.layout = {.tp = 1, .pp = 2}, .precision = Precision::fp8});
  CHECK(pp2 / kGB == doctest::Approx(34.3 + 2.1).epsilon(0.01));
}

TEST_CASE("the KV cache gets its fraction of what weights, activations and the reserve leave") {
  const ModelConfig m = catalog_model("llama3.1-70b");
  const SystemProfile s = catalog_system("h100-sxm");
  const ServeShape shape{.layout = {.tp = 2}, .precision = Precision::fp8, .kv_precision = Precision::fp8};
  const auto memory = serve_memory(m, s, shape, 8192, 2048, 0.95);
  REQUIRE(memory.has_value());
  CHECK(memory->kv_bytes_per_token == 81920);  // 2 · 80 layers · 4 KV heads · 128 · 1 byte
  CHECK(memory->kv_cache ==
        doctest::Approx(0.95 * (memory->capacity - memory->weights - memory->activations - memory->reserve)));
  CHECK(memory->kv_tokens() == doctest::Approx(memory->kv_cache / 81920));
  CHECK(memory->kv_tokens() > 450e3);
  CHECK(memory->max_requests(2000) == static_cast<int>(memory->kv_tokens() / 2000));
}

TEST_CASE("a model whose weights exceed the GPU, or leave nothing for a KV cache, is refused with the numbers") {
  const SystemProfile h100 = catalog_system("h100-sxm");
  const auto big = serve_memory(catalog_model("llama3.1-405b"), h100, {.layout = {.tp = 4}}, 8192, 2048, 0.9);
  REQUIRE_FALSE(big.has_value());
  CHECK(big.error().message.find("llama3.1-405b in bf16 at TP4 PP1 needs 189.") == 0);
  CHECK(big.error().message.find("of weights per GPU; h100-sxm has 80.0 GiB") != std::string::npos);
  // Llama 3.1 70B in FP8 on one H100 fits, until a large token budget's activations take the rest.
  const ModelConfig m = catalog_model("llama3.1-70b");
  const ServeShape one{.layout = {.tp = 1}, .precision = Precision::fp8, .kv_precision = Precision::fp8};
  CHECK(serve_memory(m, h100, one, 8192, 2048, 0.9).has_value());
  const auto full = serve_memory(m, h100, one, 65536, 2048, 0.9);
  REQUIRE_FALSE(full.has_value());
  CHECK(full.error().message.find("no memory left for a KV cache: llama3.1-70b in fp8 at TP1 PP1 needs weights") == 0);
}
