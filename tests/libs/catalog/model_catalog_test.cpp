#include "dgx/catalog/framework.hpp"
#include "dgx/catalog/hf_config.hpp"
#include "dgx/catalog/model_catalog.hpp"
#include "dgx/catalog/model_params.hpp"
#include "dgx/catalog/precision.hpp"
#include "dgx/catalog/pricing.hpp"
#include "dgx/catalog/system_catalog.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <utility>

using namespace dgx::catalog;

TEST_CASE("the embedded model catalog holds all 30 models with their required fields") {
  const std::vector<std::string> expected = {
      "deepseek-v3",   "glm-5",          "gpt-oss-120b",    "gpt-oss-20b",   "gpt3-175b",       "gpt3-20b",
      "gpt3-5b",       "kimi-k2",        "kimi-k2.5",       "llama2-13b",    "llama2-70b",      "llama2-7b",
      "llama3-70b",    "llama3.1-405b",  "llama3.1-70b",    "llama3.1-8b",   "llama4-maverick", "llama4-scout",
      "minimax-m2.5",  "mixtral-8x22b",  "mixtral-8x7b",    "nemotron-22b",  "nemotron-8b",     "nemotron-h-56b",
      "nemotron4-15b", "nemotron4-340b", "qwen3-235b-a22b", "qwen3-30b-a3b", "qwen3-32b",       "qwen3.5-397b-a17b"};
  CHECK(model_names() == expected);
  for (const std::string& name : expected) {
    CAPTURE(name);
    const auto m = find_model(name);
    REQUIRE_MESSAGE(m.has_value(), (m ? "" : m.error().message));
    CHECK(m->name == name);
    CHECK_FALSE(m->source.empty());
    CHECK(m->layers > 0);
    CHECK((m->hidden % m->heads == 0 || m->head_dim_override > 0 || m->mla()));
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

TEST_CASE("newer architectures: MLA, shared experts, leading dense layers, MTP, explicit head sizes, windows") {
  const ModelConfig ds = *find_model("deepseek-v3");
  CHECK(ds.mla());
  CHECK(ds.head_dim() == 192);  // 128 without and 64 with rotary embedding
  CHECK(ds.value_dim() == 128);
  CHECK(ds.kv_heads() == 128);
  CHECK(ds.shared_experts == 1);
  CHECK(ds.moe_layers() == 58);
  CHECK(ds.dense_mlp_ffn() == 18432);
  CHECK(ds.mtp_layers == 1);
  const ModelConfig qwen = *find_model("qwen3-235b-a22b");
  CHECK(qwen.head_dim() == 128);
  CHECK(qwen.q_width() == 8192);  // wider than hidden 4096
  const ModelConfig oss = *find_model("gpt-oss-120b");
  CHECK(oss.sliding_window == 128);
  CHECK(oss.sliding_window_layers == 0.5);
  CHECK(oss.linear_bias);
  const auto bad = parse_model("name = \"x\"\ndisplay = \"x\"\nsource = \"s\"\nlayers = 2\nhidden = 64\nffn = 64\n"
                               "heads = 4\nkv_groups = 4\nvocab = 10\nactivation = \"swiglu\"\nseq_len = 8\n"
                               "attention = \"mla\"\n",
                               "configs/models/x.toml");
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().message.find("mla needs kv_lora_rank") != std::string::npos);
}

TEST_CASE("an unknown model is an error that lists the catalog") {
  const auto m = find_model("llama9-1t");
  REQUIRE_FALSE(m.has_value());
  CHECK(m.error().message.find("unknown model 'llama9-1t'") != std::string::npos);
  CHECK(m.error().message.find("llama3.1-70b") != std::string::npos);
}

namespace {
constexpr const char* kValid = R"(name = "tiny"
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
    CHECK(m.error().message.starts_with("tiny.toml:"));
    CHECK(m.error().message.find(": key 'layers' must be an integer") != std::string::npos);
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

TEST_CASE("the names users type: llama3.3-70b is an alias of llama3.1-70b, llama3-70b its own 8K-context entry") {
  const auto llama33 = find_model("llama3.3-70b");
  REQUIRE(llama33.has_value());
  CHECK(llama33->name == "llama3.1-70b");  // the model keeps its name; the alias finds it
  CHECK(model_aliases() == std::vector<std::string>{"deepseek-r1", "llama3.3-70b"});
  CHECK(find_model("deepseek-r1")->name == "deepseek-v3");  // R1: V3's architecture, other weights
  const auto llama3 = find_model("llama3-70b");
  const auto llama31 = find_model("llama3.1-70b");
  REQUIRE(llama3.has_value());
  REQUIRE(llama31.has_value());
  CHECK(llama3->layers == llama31->layers);
  CHECK(llama3->hidden == llama31->hidden);
  CHECK(llama3->ffn == llama31->ffn);
  CHECK(llama3->kv_groups == llama31->kv_groups);
  CHECK(llama3->vocab == llama31->vocab);
  CHECK(llama3->context == 8192);
  CHECK(llama31->context == 131072);
}

TEST_CASE("a hybrid model's layer groups, mixers and checkpoint format are read, and each group is viewed alone") {
  const std::string hybrid =
      std::string(kValid).replace(std::string(kValid).find("layers = 2"), 10, "layers = 6") +
      "experts = 8\ntop_k = 2\n"
      "[mamba2]\nheads = 8\nhead_dim = 16\nstate = 32\ngroups = 2\nconv_kernel = 4\nchunk = 128\n"
      "[checkpoint]\nweights = \"mxfp4\"\nquantized = \"experts\"\n"
      "[[layer_group]]\ncount = 3\nmixer = \"mamba2\"\nmlp = \"none\"\n"
      "[[layer_group]]\ncount = 1\nmixer = \"attention\"\nwindow = 64\nmlp = \"none\"\n"
      "[[layer_group]]\ncount = 2\nmixer = \"none\"\nmlp = \"moe\"\n";
  const auto m = parse_model(hybrid, "hybrid.toml");
  REQUIRE_MESSAGE(m.has_value(), (m ? "" : m.error().message));
  REQUIRE(m->layer_groups.size() == 3);
  CHECK(m->checkpoint.weights == WeightFormat::mxfp4);
  CHECK(m->checkpoint.quantized == QuantizedPart::experts);
  const ModelConfig mamba = m->layer_view(m->layer_groups[0]);
  CHECK(mamba.layers == 3);
  CHECK(mamba.mixer == Mixer::mamba2);
  CHECK(mamba.mlp_free);
  CHECK_FALSE(mamba.moe());
  const ModelConfig local = m->layer_view(m->layer_groups[1]);
  CHECK(local.sliding_window == 64);
  CHECK(local.sliding_window_layers == 1.0);
  const ModelConfig experts = m->layer_view(m->layer_groups[2]);
  CHECK(experts.mixer == Mixer::none);
  CHECK(experts.moe());
  // Groups that do not add up to the layers, or sizes a mixer needs and lacks, are errors naming the key.
  std::string short_groups = hybrid;
  short_groups.replace(short_groups.find("count = 2"), 9, "count = 1");
  CHECK(parse_model(short_groups, "h.toml").error().message.find("key 'layer_group'") != std::string::npos);
  std::string no_sizes = hybrid;
  no_sizes.erase(no_sizes.find("[mamba2]"), no_sizes.find("[checkpoint]") - no_sizes.find("[mamba2]"));
  CHECK(parse_model(no_sizes, "h.toml").error().message.find("is needed by mamba2 layers") != std::string::npos);
}

TEST_CASE("a model without groups is one group of its default layers, and its view is itself") {
  const auto m = parse_model(kValid, "tiny.toml");
  REQUIRE(m.has_value());
  const std::vector<LayerGroup> mix = m->layer_mix();
  REQUIRE(mix.size() == 1);
  CHECK(mix[0].count == 2);
  CHECK(mix[0].mlp == Mlp::dense);
  CHECK(m->layer_view(mix[0]).ffn == m->ffn);
}

TEST_CASE("find_model reads a config.json by its path, or by the folder that holds it, and says what is wrong") {
  const std::filesystem::path folder = std::filesystem::path(DGX_SOURCE_DIR) / "tests/libs/catalog/data/hf-configs";
  const auto hf = find_model((folder / "meta-llama--Meta-Llama-3.1-70B_config.json").string());
  REQUIRE_MESSAGE(hf.has_value(), (hf ? "" : hf.error().message));
  // The same architecture as the catalog's llama3.1-70b, under the name its repository gives it.
  CHECK(hf->name == "meta-llama-3.1-70b");
  CHECK(count_parameters(*hf).total == count_parameters(*find_model("llama3.1-70b")).total);
  const auto missing = find_model("no-such-folder/config.json");
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().message == "no-such-folder/config.json: No such file or directory");
  CHECK(find_model("llama3.1-70b.json").error().message.find("llama3.1-70b.json: ") == 0);  // a path, not a name
}

TEST_CASE("the presets generated from a config.json read as that config.json does, context and all") {
  const std::filesystem::path folder = std::filesystem::path(DGX_SOURCE_DIR) / "tests/libs/catalog/data/hf-configs";
  const std::pair<const char*, const char*> presets[] = {
      {"qwen3-32b", "Qwen--Qwen3-32B"},
      {"llama4-scout", "meta-llama--Llama-4-Scout-17B-16E-Instruct"},
      {"llama4-maverick", "meta-llama--Llama-4-Maverick-17B-128E-Instruct"},
      {"gpt-oss-20b", "openai--gpt-oss-20b"},
      {"kimi-k2", "moonshotai--Kimi-K2-Instruct"},
      {"glm-5", "zai-org--GLM-5"},
      {"nemotron-h-56b", "nvidia--Nemotron-H-56B-Base-8K"}};
  for (const auto& preset_and_repo : presets) {  // named members: doctest's CAPTURE cannot take a binding (clang)
    const char* name = preset_and_repo.first;
    const char* repo = preset_and_repo.second;
    CAPTURE(name);
    const auto preset = find_model(name);
    const auto config = read_hf_config(folder / (std::string(repo) + "_config.json"));
    REQUIRE_MESSAGE(preset.has_value(), (preset ? "" : preset.error().message));
    REQUIRE(config.has_value());
    CHECK(count_parameters(*preset).total == count_parameters(*config).total);
    CHECK(count_parameters(*preset).active == count_parameters(*config).active);
    CHECK(preset->context == config->context);
    CHECK(preset->seq_len == config->seq_len);
    CHECK(preset->layer_groups.size() == config->layer_groups.size());
    CHECK(preset->checkpoint.weights == config->checkpoint.weights);
  }
}

TEST_CASE("qwen3-30b-a3b's context is its config.json's max_position_embeddings, room for 8K + 1K tokens") {
  const auto qwen = find_model("qwen3-30b-a3b");
  REQUIRE(qwen.has_value());
  CHECK(qwen->context == 40960);
  CHECK(qwen->context >= 8192 + 1024);
}
