#include "dgx/catalog/hf_config.hpp"

#include "dgx/catalog/model_params.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "temp_dir.hpp"
#include "text_checks.hpp"

using namespace dgx::catalog;
using dgx::testing::has;
using dgx::testing::TempDir;

namespace {

namespace fs = std::filesystem;

/// The real config.json files of tests/libs/catalog/data/hf-configs (README.md there says where each comes from).
fs::path hf_configs() { return fs::path(DGX_SOURCE_DIR) / "tests/libs/catalog/data/hf-configs"; }

/// Every config.json of the data folder ("<org>--<name>_config.json"; not the hf_quant_config.json beside some).
std::vector<fs::path> every_config() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(hf_configs())) {
    const std::string file = entry.path().filename().string();
    if (file.ends_with("_config.json") && !file.ends_with("_hf_quant_config.json")) {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

ModelConfig hf_model(const std::string& repo) {
  auto model = read_hf_config(hf_configs() / (repo + "_config.json"));
  REQUIRE_MESSAGE(model.has_value(), (model ? "" : model.error().message));
  return *model;
}

std::string file_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The error read_hf_config gives for `json` as a folder's config.json.
std::string error_for(const std::string& json) {
  const TempDir dir;
  dir.write("broken/config.json", json);
  auto model = read_hf_config(dir.path() / "broken");
  REQUIRE_FALSE(model.has_value());
  return model.error().message;
}

/// Llama 3.1 8B's config.json with `from` replaced by `to` (the first occurrence), to break one field.
std::string llama_with(const std::string& from, const std::string& to) {
  std::string text = file_text(hf_configs() / "meta-llama--Meta-Llama-3.1-8B_config.json");
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

/// A published parameter count and where it is published.
struct Published {
  const char* repo;
  double total;
  double active;  ///< 0: a dense model
  const char* source;
};

// Model cards differ in whether the input embedding and the LM head count as active parameters (gpt-oss's 5.1B
// leaves the embedding out, Nemotron 3 Nano's 3.2B both, DeepSeek's 37B counts them): the published active count
// must lie between ours without them and ours with them (each within 2%).
const Published kPublished[] = {
    {"meta-llama--Meta-Llama-3.1-8B", 8.03e9, 0, "huggingface.co/meta-llama/Llama-3.1-8B: 8.03B params"},
    {"meta-llama--Meta-Llama-3.1-70B", 70.6e9, 0, "huggingface.co/meta-llama/Llama-3.1-70B: 70.6B params"},
    {"meta-llama--Meta-Llama-3.1-405B", 405.9e9, 0, "huggingface.co/meta-llama/Llama-3.1-405B: 405.9B params"},
    {"Qwen--Qwen3-8B", 8.2e9, 0, "huggingface.co/Qwen/Qwen3-8B: Number of Parameters: 8.2B"},
    {"Qwen--Qwen3-32B", 32.8e9, 0, "huggingface.co/Qwen/Qwen3-32B: Number of Parameters: 32.8B"},
    {"Qwen--Qwen3-32B-FP8", 32.8e9, 0, "huggingface.co/Qwen/Qwen3-32B-FP8: Number of Parameters: 32.8B"},
    {"Qwen--Qwen3-30B-A3B", 30.5e9, 3.3e9, "huggingface.co/Qwen/Qwen3-30B-A3B: 30.5B in total and 3.3B activated"},
    {"Qwen--Qwen3-235B-A22B", 235e9, 22e9, "huggingface.co/Qwen/Qwen3-235B-A22B: 235B in total and 22B activated"},
    {"nvidia--Qwen3-235B-A22B-NVFP4", 235e9, 22e9, "the Qwen3-235B-A22B it quantizes: 235B, 22B activated"},
    {"Qwen--Qwen3.5-27B", 27e9, 0, "huggingface.co/Qwen/Qwen3.5-27B: Number of Parameters: 27B"},
    {"Qwen--Qwen3.5-397B-A17B", 397e9, 17e9, "huggingface.co/Qwen/Qwen3.5-397B-A17B: 397B in total, 17B activated"},
    {"deepseek-ai--DeepSeek-V3", 671e9, 37e9, "DeepSeek-V3 model card: 671B total, 37B activated, MTP apart"},
    {"deepseek-ai--DeepSeek-R1", 671e9, 37e9, "DeepSeek-R1 model card: 671B total, 37B activated"},
    {"deepseek-ai--DeepSeek-V3.2", 671e9, 37e9, "DeepSeek-V3.2 model card: 685B with the 14B MTP module"},
    {"nvidia--DeepSeek-V3.1-NVFP4", 671e9, 37e9, "the DeepSeek-V3.1 it quantizes: 671B total, 37B activated"},
    {"moonshotai--Kimi-K2-Instruct", 1.04e12, 32.6e9, "Kimi K2 report (arXiv 2507.20534): 1.04T, 32.6B activated"},
    {"moonshotai--Kimi-K2.5", 1.04e12, 32.6e9, "Kimi K2.5 model card: the Kimi K2 base and a MoonViT encoder"},
    {"mistralai--Mixtral-8x7B-v0.1", 46.7e9, 12.9e9, "mistral.ai/news/mixtral-of-experts: 46.7B, 12.9B per token"},
    {"mistralai--Mixtral-8x22B-v0.1", 141e9, 39e9, "mistral.ai/news/mixtral-8x22b: 141B, 39B active"},
    {"openai--gpt-oss-120b", 116.8e9, 5.1e9, "gpt-oss model card (arXiv 2508.10925): 116.8B total, 5.1B active"},
    {"openai--gpt-oss-20b", 20.9e9, 3.6e9, "gpt-oss model card (arXiv 2508.10925): 20.9B total, 3.6B active"},
    {"zai-org--GLM-5", 744e9, 40e9, "GLM-5 report (arXiv 2602.15763): 744B total, 40B activated"},
    {"MiniMaxAI--MiniMax-M2.5", 230e9, 10e9, "huggingface.co/MiniMaxAI/MiniMax-M2.5: 230B total, 10B activated"},
    {"meta-llama--Llama-4-Scout-17B-16E-Instruct", 109e9, 17e9,
     "Llama 4 model card: Scout 109B total, 17B activated (its vision encoder is not in config.json)"},
    {"meta-llama--Llama-4-Maverick-17B-128E-Instruct", 400e9, 17e9,
     "Llama 4 model card: Maverick 400B total, 17B activated"},
    {"nvidia--Nemotron-H-56B-Base-8K", 56e9, 0, "Nemotron-H (arXiv 2504.03624): Nemotron-H-56B"},
    {"nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", 31.6e9, 3.2e9,
     "huggingface.co/nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16: 31.6B total, 3.2B active (3.6B with embeddings)"},
    {"nvidia--Llama-3_3-Nemotron-Super-49B-v1", 49.9e9, 0,
     "huggingface.co/nvidia/Llama-3_3-Nemotron-Super-49B-v1: 49.9B params"},
};

}  // namespace

TEST_CASE("every config.json of the data folder loads, with a name, a source and its layers accounted for") {
  const std::vector<fs::path> files = every_config();
  CHECK(files.size() == 28);
  for (const fs::path& file : files) {
    CAPTURE(file.filename().string());
    auto model = read_hf_config(file);
    REQUIRE_MESSAGE(model.has_value(), (model ? "" : model.error().message));
    CHECK_FALSE(model->name.empty());
    CHECK(has(model->source, "config.json of "));
    CHECK(model->seq_len > 0);
    CHECK(model->seq_len <= model->context);
    int layers = 0;
    for (const LayerGroup& group : model->layer_mix()) {
      layers += group.count;
    }
    CHECK(layers == model->layers);
    CHECK(count_parameters(*model).total > 1e9);
  }
}

TEST_CASE("every config with a published parameter count is within 2% of it, active parameters too") {
  for (const Published& p : kPublished) {
    CAPTURE(p.repo);
    CAPTURE(p.source);
    const ParameterCount count = count_parameters(hf_model(p.repo));
    CHECK(count.total == doctest::Approx(p.total).epsilon(0.02));
    if (p.active > 0) {
      const double without_embeddings = count.active - count.embedding - count.output_layer;
      CHECK(p.active >= 0.98 * without_embeddings);
      CHECK(p.active <= 1.02 * count.active);
    }
  }
  // Every config of the data folder has a published count above.
  CHECK(std::size(kPublished) == every_config().size());
}

TEST_CASE("a config.json is named for its repository: org--name_config.json, the Hugging Face cache, its folder") {
  const ModelConfig llama = hf_model("meta-llama--Meta-Llama-3.1-70B");
  CHECK(llama.name == "meta-llama-3.1-70b");
  CHECK(llama.display == "Meta-Llama-3.1-70B");
  CHECK(llama.checkpoints == std::vector<std::string>{"meta-llama/Meta-Llama-3.1-70B"});
  CHECK(has(llama.source, "config.json of meta-llama/Meta-Llama-3.1-70B"));

  const TempDir dir;
  const std::string text = file_text(hf_configs() / "meta-llama--Meta-Llama-3.1-8B_config.json");
  dir.write("Llama-3.1-8B/config.json", text);
  dir.write("hub/models--meta-llama--Llama-3.1-8B/snapshots/0e9e39f249a16976918f6564b8830bc894c89659/config.json",
            text);
  const auto folder = read_hf_config(dir.path() / "Llama-3.1-8B");
  REQUIRE(folder.has_value());
  CHECK(folder->name == "llama-3.1-8b");
  CHECK(folder->layers == 32);
  const auto cached = read_hf_config(dir.path() / "hub/models--meta-llama--Llama-3.1-8B/snapshots" /
                                     "0e9e39f249a16976918f6564b8830bc894c89659/config.json");
  REQUIRE(cached.has_value());
  CHECK(cached->name == "llama-3.1-8b");
  CHECK(cached->checkpoints == std::vector<std::string>{"meta-llama/Llama-3.1-8B"});
}

TEST_CASE("context is max_position_embeddings, seq_len the native context a rope extension states, else 4096") {
  const ModelConfig ds = hf_model("deepseek-ai--DeepSeek-V3");
  CHECK(ds.context == 163840);
  CHECK(ds.seq_len == 4096);  // rope_scaling: YaRN x40 over original_max_position_embeddings 4096
  CHECK(has(ds.source, "native context is 4096, extended by yarn rope scaling x40"));
  const ModelConfig llama = hf_model("meta-llama--Meta-Llama-3.1-8B");
  CHECK(llama.context == 131072);
  CHECK(llama.seq_len == 8192);
  const ModelConfig qwen = hf_model("Qwen--Qwen3-30B-A3B");
  CHECK(qwen.context == 40960);
  CHECK(qwen.seq_len == 4096);
  CHECK(has(qwen.source, "seq_len 4096: dgxhost's default training sequence"));
  CHECK(hf_model("openai--gpt-oss-120b").seq_len == 4096);  // initial_context_length
  CHECK(hf_model("nvidia--Nemotron-H-56B-Base-8K").context == 8192);
}

TEST_CASE("dense and MoE decoders: heads, KV heads, head_dim, experts, shared experts, leading dense layers") {
  const ModelConfig qwen = hf_model("Qwen--Qwen3-235B-A22B");
  CHECK(qwen.head_dim() == 128);
  CHECK(qwen.kv_groups == 4);
  CHECK(qwen.qk_norm);
  CHECK(qwen.experts == 128);
  CHECK(qwen.top_k == 8);
  CHECK(qwen.ffn == 1536);
  CHECK_FALSE(qwen.grouped());
  const ModelConfig mixtral = hf_model("mistralai--Mixtral-8x22B-v0.1");
  CHECK(mixtral.experts == 8);
  CHECK(mixtral.top_k == 2);
  CHECK(mixtral.ffn == 16384);
  const ModelConfig kimi = hf_model("moonshotai--Kimi-K2-Instruct");
  CHECK(kimi.mla());
  CHECK(kimi.experts == 384);
  CHECK(kimi.shared_experts == 1);
  CHECK(kimi.dense_layers == 1);
  CHECK(kimi.dense_mlp_ffn() == 18432);
  CHECK(kimi.mtp_layers == 0);
  const ModelConfig minimax = hf_model("MiniMaxAI--MiniMax-M2.5");
  CHECK(minimax.mtp_layers == 3);
  CHECK(minimax.qk_norm);
  CHECK(has(minimax.source, "rotary embedding on 64 of the 128 channels"));
}

TEST_CASE("MLA and DeepSeek sparse attention: latent ranks, head sizes and the indexer of V3.2 and GLM-5") {
  const ModelConfig v32 = hf_model("deepseek-ai--DeepSeek-V3.2");
  CHECK(v32.q_lora_rank == 1536);
  CHECK(v32.kv_lora_rank == 512);
  CHECK(v32.head_dim() == 192);
  CHECK(v32.sparse_topk == 2048);
  CHECK(v32.indexer_heads == 64);
  CHECK(v32.indexer_head_dim == 128);
  CHECK(v32.mtp_layers == 1);
  CHECK(hf_model("deepseek-ai--DeepSeek-V3").sparse_topk == 0);
  const ModelConfig glm = hf_model("zai-org--GLM-5");
  CHECK(glm.q_lora_rank == 2048);
  CHECK(glm.qk_nope_head_dim == 192);
  CHECK(glm.value_dim() == 256);
  CHECK(glm.indexer_heads == 32);
  CHECK(glm.dense_layers == 3);
  CHECK(glm.moe_layers() == 75);
}

TEST_CASE("gpt-oss: alternating sliding and full attention, biases, the clamped GLU, sinks noted") {
  const ModelConfig oss = hf_model("openai--gpt-oss-20b");
  CHECK(oss.sliding_window == 128);
  CHECK(oss.sliding_window_layers == 0.5);
  CHECK(oss.linear_bias);
  CHECK(oss.glu_clamp == 7.0);
  CHECK(oss.head_dim() == 64);
  CHECK(has(oss.source, "attention sinks"));
}

TEST_CASE("Llama 4: chunked RoPE layers and every fourth global NoPE layer, Maverick's interleaved dense layers") {
  const ModelConfig scout = hf_model("meta-llama--Llama-4-Scout-17B-16E-Instruct");
  REQUIRE(scout.layer_groups.size() == 2);
  CHECK(scout.layer_groups[0].count == 36);
  CHECK(scout.layer_groups[0].chunk == 8192);
  CHECK(scout.layer_groups[0].mlp == Mlp::moe);
  CHECK(scout.layer_groups[1].count == 12);
  CHECK(scout.layer_groups[1].chunk == 0);
  CHECK(scout.shared_experts == 1);
  CHECK(scout.context == 10485760);
  const ModelConfig maverick = hf_model("meta-llama--Llama-4-Maverick-17B-128E-Instruct");
  REQUIRE(maverick.layer_groups.size() == 3);
  // Even layers dense (intermediate_size_mlp), odd ones MoE; layers 3, 7, ... global: all of them MoE layers.
  CHECK(maverick.layer_groups[0].count == 24);
  CHECK(maverick.layer_groups[0].mlp == Mlp::dense);
  CHECK(maverick.layer_groups[0].ffn == 16384);
  CHECK(maverick.layer_groups[1].count == 12);
  CHECK(maverick.layer_groups[1].mlp == Mlp::moe);
  CHECK(maverick.layer_groups[2].chunk == 0);
  CHECK(maverick.layer_groups[2].mlp == Mlp::moe);
}

TEST_CASE("Qwen3.5: Gated DeltaNet and full-attention layers, the output gate, MTP and the vision tower") {
  const ModelConfig dense = hf_model("Qwen--Qwen3.5-27B");
  REQUIRE(dense.layer_groups.size() == 2);
  CHECK(dense.layer_groups[0].mixer == Mixer::linear_attention);
  CHECK(dense.layer_groups[0].count == 48);
  CHECK(dense.layer_groups[1].mixer == Mixer::attention);
  CHECK(dense.layer_groups[1].count == 16);
  CHECK(dense.attention_output_gate);
  CHECK(dense.head_dim() == 256);
  CHECK(dense.linear_attention.value_heads == 48);
  CHECK(dense.linear_attention.key_head_dim == 128);
  CHECK(dense.mtp_layers == 1);
  CHECK(dense.extra_params == doctest::Approx(0.46e9).epsilon(0.05));
  CHECK(has(dense.source, "vision tower of"));
  const ModelConfig moe = hf_model("Qwen--Qwen3.5-397B-A17B");
  CHECK(moe.experts == 512);
  CHECK(moe.top_k == 10);
  CHECK(moe.shared_experts == 1);
  CHECK(moe.ffn == 1024);
}

TEST_CASE("Nemotron-H: the hybrid pattern's Mamba-2, attention, MLP and MoE blocks, squared-ReLU MLPs") {
  const ModelConfig h56 = hf_model("nvidia--Nemotron-H-56B-Base-8K");
  CHECK(h56.activation == Activation::squared_relu);
  CHECK(h56.mamba.heads == 256);
  CHECK(h56.mamba.state == 256);
  CHECK(h56.mamba.groups == 8);
  REQUIRE(h56.layer_groups.size() == 3);
  CHECK(h56.layer_groups[0].mixer == Mixer::mamba2);
  CHECK(h56.layer_groups[0].count == 54);
  CHECK(h56.layer_groups[1].mixer == Mixer::none);
  CHECK(h56.layer_groups[1].mlp == Mlp::dense);
  CHECK(h56.layer_groups[1].count == 54);
  CHECK(h56.layer_groups[2].mixer == Mixer::attention);
  CHECK(h56.layer_groups[2].mlp == Mlp::none);
  CHECK(h56.layer_groups[2].count == 10);
  const ModelConfig nano = hf_model("nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16");
  CHECK(nano.experts == 128);
  CHECK(nano.top_k == 6);
  CHECK(nano.shared_experts == 2);  // one shared expert of 3712 = two of the routed experts' 1856
  CHECK(nano.head_dim() == 128);
  int moe_layers = 0;
  for (const LayerGroup& g : nano.layer_groups) {
    moe_layers += g.mlp == Mlp::moe ? g.count : 0;
  }
  CHECK(moe_layers == 23);
}

TEST_CASE("Llama-Nemotron Super: per-layer blocks, no-op attention, and DeciLM's ffn_mult rule") {
  const ModelConfig super = hf_model("nvidia--Llama-3_3-Nemotron-Super-49B-v1");
  CHECK(super.ffn == 28672);    // ffn_mult 5.25: int(2 * 5.25 * 8192 / 3) = 28672, a multiple of 256
  CHECK(super.kv_groups == 8);  // n_heads_in_group 8 of 64 heads
  int attention = 0;
  bool rounded_up = false;
  for (const LayerGroup& g : super.layer_groups) {
    attention += g.mixer == Mixer::attention ? g.count : 0;
    rounded_up = rounded_up || g.ffn == 2816;  // ffn_mult 0.5: int(2730.67) = 2730, rounded up to 2816
  }
  CHECK(attention == 49);
  CHECK(rounded_up);
}

TEST_CASE("the checkpoint's precision: fp8 blocks, MXFP4 experts, NVFP4 beside it, INT4 experts") {
  CHECK(hf_model("Qwen--Qwen3-32B").checkpoint.weights == WeightFormat::bf16);
  const ModelConfig fp8 = hf_model("Qwen--Qwen3-32B-FP8");
  CHECK(fp8.checkpoint.weights == WeightFormat::fp8_block);
  CHECK(fp8.checkpoint.quantized == QuantizedPart::all);
  CHECK(hf_model("deepseek-ai--DeepSeek-V3").checkpoint.weights == WeightFormat::fp8_block);
  const ModelConfig oss = hf_model("openai--gpt-oss-120b");
  CHECK(oss.checkpoint.weights == WeightFormat::mxfp4);
  CHECK(oss.checkpoint.quantized == QuantizedPart::experts);
  // hf_quant_config.json: NVFP4 with the attention's projections excluded, the MLPs (dense and shared too) NVFP4.
  const ModelConfig nvfp4 = hf_model("nvidia--DeepSeek-V3.1-NVFP4");
  CHECK(nvfp4.checkpoint.weights == WeightFormat::nvfp4);
  CHECK(nvfp4.checkpoint.quantized == QuantizedPart::mlp);
  CHECK(has(nvfp4.source, "config.json and hf_quant_config.json of nvidia/DeepSeek-V3.1-NVFP4"));
  const ModelConfig qwen = hf_model("nvidia--Qwen3-235B-A22B-NVFP4");  // only the routers excluded
  CHECK(qwen.checkpoint.weights == WeightFormat::nvfp4);
  CHECK(qwen.checkpoint.quantized == QuantizedPart::all);
  const ModelConfig kimi = hf_model("moonshotai--Kimi-K2.5");  // compressed-tensors W4A16, group 32
  CHECK(kimi.checkpoint.weights == WeightFormat::int4);
  CHECK(kimi.checkpoint.quantized == QuantizedPart::experts);
  CHECK(kimi.extra_params > 0.3e9);
}

TEST_CASE("a path names a config.json when it ends in .json or is a folder holding config.json") {
  CHECK(names_hf_config("x/config.json"));
  CHECK(names_hf_config("my-model.json"));
  CHECK_FALSE(names_hf_config("llama3.1-70b"));
  const TempDir dir;
  CHECK_FALSE(names_hf_config(dir.path().string()));
  dir.write("config.json", "{}");
  CHECK(names_hf_config(dir.path().string()));
}

TEST_CASE("text that is not JSON is an error naming the file, line and column") {
  const std::string message =
      error_for("{\n  \"architectures\": [\"LlamaForCausalLM\"],\n  \"hidden_size\": 4096,,\n}");
  CHECK(has(message, "config.json:3:"));
  CHECK(has(message, "not JSON"));
  CHECK(has(error_for("[1, 2]"), "expected an object"));
  CHECK(has(error_for(std::string(100, '[')), "nested deeper than 64 levels"));
}

TEST_CASE("a missing file or a field the architecture needs is an error naming the file and the field") {
  const TempDir dir;
  const auto missing = read_hf_config(dir.path() / "nowhere_config.json");
  REQUIRE_FALSE(missing.has_value());
  CHECK(has(missing.error().message, "nowhere_config.json"));
  const std::string message = error_for(llama_with("\"intermediate_size\"", "\"intermediate\""));
  CHECK(has(message, "config.json: field 'intermediate_size' is missing"));
  CHECK(has(error_for("{\"architectures\": [\"Qwen3_5ForConditionalGeneration\"], \"text_config\": {}}"),
            "field 'text_config.num_hidden_layers' is missing"));
}

TEST_CASE("non-physical values are errors naming the field and the reason") {
  CHECK(has(error_for(llama_with("\"num_attention_heads\": 32", "\"num_attention_heads\": 0")),
            "field 'num_attention_heads' must be a positive integer, got 0"));
  CHECK(has(error_for(llama_with("\"num_key_value_heads\": 8", "\"num_key_value_heads\": 64")),
            "field 'num_key_value_heads' is 64: key/value heads must divide the 32 attention heads"));
  CHECK(has(error_for(llama_with("\"num_key_value_heads\": 8", "\"num_key_value_heads\": 5")),
            "field 'num_key_value_heads' is 5"));
  CHECK(has(error_for(llama_with("\"intermediate_size\": 14336", "\"intermediate_size\": -14336")),
            "field 'intermediate_size' must be a positive integer, got -14336"));
  CHECK(has(error_for(llama_with("\"vocab_size\": 128256", "\"vocab_size\": 1.5")),
            "field 'vocab_size' must be a positive integer, got 1.5"));
  std::string mixtral = file_text(hf_configs() / "mistralai--Mixtral-8x7B-v0.1_config.json");
  mixtral.replace(mixtral.find("\"num_experts_per_tok\": 2"), 24, "\"num_experts_per_tok\": 9");
  CHECK(has(error_for(mixtral), "field 'num_experts_per_tok' is 9, more than the 8 experts (num_local_experts)"));
}

TEST_CASE("an architecture not understood is an error naming the nearest ones understood") {
  const std::string message = error_for(llama_with("LlamaForCausalLM", "LlamaForCausalLm"));
  CHECK(has(message, "field 'architectures' names \"LlamaForCausalLm\", an architecture dgxhost does not read"));
  CHECK(has(message, "did you mean 'LlamaForCausalLM'"));
  CHECK(has(message, "It reads: DeciLMForCausalLM, DeepseekV32ForCausalLM"));
  CHECK(has(error_for(llama_with("LlamaForCausalLM", "Qwen2ForCausalLM")), "did you mean 'Qwen3ForCausalLM'"));
  CHECK(has(error_for("{\"model_type\": \"llama\"}"), "field 'architectures' is missing"));
}

TEST_CASE("an unknown quantization method is an error naming it and the methods read") {
  const std::string message = error_for(llama_with(
      "\"vocab_size\": 128256", "\"vocab_size\": 128256, \"quantization_config\": {\"quant_method\": \"gptq\"}"));
  CHECK(has(message, "field 'quantization_config.quant_method' is \"gptq\": the methods read are fp8, mxfp4"));
}

TEST_CASE("the architectures understood are listed sorted") {
  const std::vector<std::string> names = hf_config_architectures();
  CHECK(std::is_sorted(names.begin(), names.end()));
  CHECK(std::find(names.begin(), names.end(), "NemotronHForCausalLM") != names.end());
  CHECK(names.size() == 15);
}
