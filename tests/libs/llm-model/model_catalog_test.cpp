#include "dgx/llm/model_catalog.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace dgx::llm;

TEST_CASE("the embedded model catalog holds all 15 models with their required fields") {
  const std::vector<std::string> expected = {"gpt3-175b",   "gpt3-20b",      "gpt3-5b",       "llama2-13b",
                                             "llama2-70b",  "llama2-7b",     "llama3.1-405b", "llama3.1-70b",
                                             "llama3.1-8b", "mixtral-8x22b", "mixtral-8x7b",  "nemotron-22b",
                                             "nemotron-8b", "nemotron4-15b", "nemotron4-340b"};
  CHECK(model_names() == expected);
  for (const std::string& name : expected) {
    CAPTURE(name);
    const auto m = find_model(name);
    REQUIRE_MESSAGE(m.has_value(), (m ? "" : m.error().message));
    CHECK(m->name == name);
    CHECK_FALSE(m->source.empty());
    CHECK(m->layers > 0);
    CHECK(m->hidden % m->heads == 0);
    CHECK(m->heads % m->kv_groups == 0);
    CHECK(m->ffn > 0);
    CHECK(m->vocab > 0);
    CHECK(m->seq_len > 0);
    CHECK(m->top_k <= m->experts);
  }
}

TEST_CASE("catalog architectures: activation, attention groups and experts") {
  CHECK(find_model("nemotron4-340b")->activation == Activation::squared_relu);
  CHECK(find_model("gpt3-175b")->activation == Activation::gelu);
  CHECK(find_model("llama3.1-70b")->kv_groups == 8);
  CHECK(find_model("llama2-7b")->kv_groups == 32);
  CHECK(find_model("mixtral-8x22b")->experts == 8);
  CHECK(find_model("mixtral-8x22b")->top_k == 2);
}

TEST_CASE("an unknown model is an error that lists the catalog") {
  const auto m = find_model("llama9-1t");
  REQUIRE_FALSE(m.has_value());
  CHECK(m.error().message.find("unknown model 'llama9-1t'") != std::string::npos);
  CHECK(m.error().message.find("llama3.1-70b") != std::string::npos);
}

namespace {
const std::string kValid = R"(name = "tiny"
display = "Tiny"
source = "test"
layers = 2
hidden = 64
ffn = 256
heads = 4
kv_groups = 2
vocab = 1000
activation = "swiglu"
seq_len = 128
)";
}  // namespace

TEST_CASE("a valid model file parses") {
  const auto m = parse_model(kValid, "tiny.toml");
  REQUIRE(m.has_value());
  CHECK(m->head_dim() == 16);
  CHECK(m->qkv_width() == 64 + 2 * 16 * 2);
}

TEST_CASE("a malformed model file reports the file and the key") {
  SUBCASE("missing key") {
    std::string text = kValid;
    text.replace(text.find("hidden = 64\n"), 12, "");
    const auto m = parse_model(text, "configs/models/tiny.toml");
    REQUIRE_FALSE(m.has_value());
    CHECK(m.error().message == "configs/models/tiny.toml: key 'hidden' is missing");
  }
  SUBCASE("wrong type") {
    std::string text = kValid;
    text.replace(text.find("layers = 2"), 10, "layers = \"two\"");
    const auto m = parse_model(text, "tiny.toml");
    REQUIRE_FALSE(m.has_value());
    CHECK(m.error().message.find("tiny.toml: key 'layers' must be an integer") == 0);
  }
  SUBCASE("unknown activation") {
    std::string text = kValid;
    text.replace(text.find("swiglu"), 6, "relu6");
    const auto m = parse_model(text, "tiny.toml");
    REQUIRE_FALSE(m.has_value());
    CHECK(m.error().message.find("key 'activation' is \"relu6\", expected one of") != std::string::npos);
  }
  SUBCASE("syntax error names line and column") {
    const auto m = parse_model("name = \"x\"\nlayers = = 3\n", "bad.toml");
    REQUIRE_FALSE(m.has_value());
    CHECK(m.error().message.find("bad.toml:2:") == 0);
  }
  SUBCASE("inconsistent heads") {
    std::string text = kValid;
    text.replace(text.find("kv_groups = 2"), 13, "kv_groups = 3");
    const auto m = parse_model(text, "tiny.toml");
    REQUIRE_FALSE(m.has_value());
    CHECK(m.error().message.find("key 'kv_groups' must divide heads 4") != std::string::npos);
  }
}
