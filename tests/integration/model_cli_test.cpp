// Models as users name them (issue 35): `dgxhost model show` of a catalog name or a Hugging Face config.json, its
// catalog file read back, every kind of bad config.json as a usage failure (exit 2) naming file, field and reason,
// and the LLM plugins taking --set model=PATH/config.json through the catalog with no more work.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "dgx/catalog/model_catalog.hpp"
#include "dgx/catalog/model_params.hpp"
#include "dgx/json/json.hpp"
#include "dgxhost.hpp"
#include "temp_dir.hpp"
#include "text_checks.hpp"

using namespace dgx;
using namespace dgx::testing;

namespace {

std::string hf_config(const std::string& repo) {
  return std::string(DGX_TEST_HF_CONFIGS) + "/" + repo + "_config.json";
}

constexpr const char* kLlama70b = "meta-llama--Meta-Llama-3.1-70B";

ProcessResult show(const std::vector<std::string>& args) {
  return dgxhost(std::vector<std::string>{"model", "show"} + args);
}

json::Value row_of(const ProcessResult& r) {
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const json::Value doc = json::parse(r.out);
  REQUIRE(doc["results"].as_array().size() == 1);
  return doc["results"][0];
}

double metric(const json::Value& row, const char* name) { return row["metrics"][name]["value"].as_number(); }

}  // namespace

TEST_CASE("dgxhost model show prints what it understood of a config.json: layers, attention, MLP, parameters") {
  const ProcessResult r = show({hf_config(kLlama70b)});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(has(r.out, "Model: Meta-Llama-3.1-70B (meta-llama-3.1-70b)\n"));
  CHECK(has(r.out, "Source: config.json of meta-llama/Meta-Llama-3.1-70B"));
  CHECK(has(r.out, "Layers: 80\n"));
  CHECK(has(r.out, "Attention: 64 heads, 8 KV heads, head dim 128\n"));
  CHECK(has(r.out, "MLP: swiglu, ffn 28672\n"));
  CHECK(has(r.out, "Context: 131072 tokens; default training sequence 8192\n"));
  CHECK(has(r.out, "Parameters: 70.6B total"));
  CHECK(has(r.out, "Checkpoint: bf16\n"));
}

TEST_CASE("dgxhost model show of hybrid and MoE configs lists the layer groups, experts, state sizes, precision") {
  const ProcessResult hybrid = show({hf_config("nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16")});
  REQUIRE_MESSAGE(hybrid.exit_code == 0, hybrid.err);
  CHECK(has(hybrid.out, "x mamba2, no MLP"));
  CHECK(has(hybrid.out, "x no mixer, MoE"));
  CHECK(has(hybrid.out, "x attention, no MLP"));
  CHECK(has(hybrid.out, "Mamba-2: 64 heads x 64, state 128, 8 groups"));
  CHECK(has(hybrid.out, "MoE: 128 experts of 1856, top-6, 2 shared"));
  const ProcessResult sparse = show({hf_config("deepseek-ai--DeepSeek-V3.2")});
  REQUIRE_MESSAGE(sparse.exit_code == 0, sparse.err);
  CHECK(has(sparse.out, "latent attention (MLA): query rank 1536, key/value rank 512"));
  CHECK(has(sparse.out, "sparse: each query attends to the top 2048 keys an indexer of 64 heads x 128 picks"));
  CHECK(has(sparse.out, "Checkpoint: fp8-block (all quantized)"));
  CHECK(has(sparse.out, "Multi-token prediction: 1 module(s)"));
  const ProcessResult linear = show({hf_config("Qwen--Qwen3.5-27B")});
  REQUIRE_MESSAGE(linear.exit_code == 0, linear.err);
  CHECK(has(linear.out, "48 x linear-attention, dense MLP 17408"));
  CHECK(has(linear.out, "Linear attention: 16 key heads x 128, 48 value heads x 128, convolution 4"));
  CHECK(has(linear.out, "of them outside the decoder (vision)"));
  const ProcessResult catalog = show({"deepseek-v3"});  // a catalog name as well
  REQUIRE_MESSAGE(catalog.exit_code == 0, catalog.err);
  CHECK(has(catalog.out, "Model: DeepSeek-V3 (deepseek-v3)"));
  CHECK(has(catalog.out, "Layers: 61 (the first 3 with a dense MLP)"));
}

TEST_CASE("dgxhost model show --format toml writes a catalog file that --config-dir reads back to the same model") {
  const TempDir dir;
  const ProcessResult toml = show({hf_config("zai-org--GLM-5"), "--format", "toml", "--name", "my-glm"});
  REQUIRE_MESSAGE(toml.exit_code == 0, toml.err);
  const auto file = dir.write("models/my-glm.toml", toml.out);
  const auto back = catalog::parse_model(toml.out, file.string());
  REQUIRE_MESSAGE(back.has_value(), (back ? "" : back.error().message));
  CHECK(back->name == "my-glm");
  CHECK(catalog::count_parameters(*back).total == doctest::Approx(744e9).epsilon(0.02));
  const ProcessResult shown = show({"my-glm", "--config-dir", dir.path().string()});
  REQUIRE_MESSAGE(shown.exit_code == 0, shown.err);
  const ProcessResult original = show({hf_config("zai-org--GLM-5")});
  const auto parameters = [](const std::string& out) { return out.substr(out.find("Parameters:")); };
  CHECK(parameters(shown.out) == parameters(original.out));
}

TEST_CASE("a config.json dgxhost cannot read is exit 2 naming the file, the field and the reason") {
  const TempDir dir;
  const auto not_json = dir.write("a/config.json", "{\n  \"architectures\": [\"LlamaForCausalLM\"\n}");
  const ProcessResult syntax = show({(dir.path() / "a").string()});
  CHECK(syntax.exit_code == 2);
  CHECK(has(syntax.err, not_json.string() + ":3:1: not JSON"));
  const auto unknown = dir.write("b_config.json", "{\"architectures\": [\"MixtralForCausalLm\"]}");
  const ProcessResult arch = show({unknown.string()});
  CHECK(arch.exit_code == 2);
  CHECK(has(arch.err, unknown.string() + ": field 'architectures'"));
  CHECK(has(arch.err, "did you mean 'MixtralForCausalLM'"));
  const auto zero = dir.write("c_config.json", "{\"architectures\": [\"LlamaForCausalLM\"], \"num_hidden_layers\": 0}");
  const ProcessResult physical = show({zero.string()});
  CHECK(physical.exit_code == 2);
  CHECK(has(physical.err, "field 'num_hidden_layers' must be a positive integer, got 0"));
  const ProcessResult name = show({"llama3.1-7b"});
  CHECK(name.exit_code == 2);
  CHECK(has(name.err, "unknown model 'llama3.1-7b'"));
  const ProcessResult usage = dgxhost({"model", "list"});
  CHECK(usage.exit_code == 2);
  CHECK(has(usage.err, "dgxhost model show PATH/config.json|NAME"));
}

TEST_CASE("--set model=PATH/config.json trains and serves the model of the file as the catalog's own") {
  const auto project = [](const std::string& preset, const std::string& model) {
    return row_of(dgxhost({"--plugin", preset, "--mode", "project", "--set", "model=" + model, "--format", "json"}));
  };
  // Llama 3.1 70B's config.json is the catalog's llama3.1-70b: the same step, the same memory.
  const json::Value trained = project("llama70b", hf_config(kLlama70b));
  const json::Value catalog = project("llama70b", "llama3.1-70b");
  CHECK(trained["config"]["model"].as_string() == "meta-llama-3.1-70b");  // the name the file gives it
  CHECK(metric(trained, "step_time") == doctest::Approx(metric(catalog, "step_time")).epsilon(0.001));
  CHECK(metric(trained, "memory_per_gpu") == doctest::Approx(metric(catalog, "memory_per_gpu")));
  const json::Value served = project("llama70b-serve", hf_config(kLlama70b));
  const json::Value served_catalog = project("llama70b-serve", "llama3.1-70b");
  CHECK(metric(served, "ttft") == doctest::Approx(metric(served_catalog, "ttft")).epsilon(0.001));
  CHECK(metric(served, "tpot") == doctest::Approx(metric(served_catalog, "tpot")).epsilon(0.001));
  // A broken file is the run's configuration error, naming file, field and reason.
  const TempDir dir;
  const auto broken = dir.write("config.json", "{\"architectures\": [\"LlamaForCausalLM\"], \"hidden_size\": -1}");
  const ProcessResult r = dgxhost({"--plugin", "llama70b", "--mode", "project", "--set", "model=" + broken.string()});
  CHECK(r.exit_code == 2);
  CHECK(has(r.err, broken.string() + ": field 'num_hidden_layers' is missing"));
}

TEST_CASE("every config.json of the reference set projects training and serving on a system it fits") {
  // Issue 35: training (an explore at 256 GPUs of a GB200 NVL72 in BF16: the layouts that fit, the best kept) and
  // serving (the explorer over one node of 8 B200) run for every architecture, hybrid and MoE ones included.
  for (const auto& entry : std::filesystem::directory_iterator(DGX_TEST_HF_CONFIGS)) {
    const std::string file = entry.path().filename().string();
    if (!file.ends_with("_config.json") || file.ends_with("_hf_quant_config.json")) {
      continue;
    }
    CAPTURE(file);
    const std::string model = "model=" + entry.path().string();
    const ProcessResult training =
        dgxhost({"--plugin", "llm-pretrain", "--set", model, "--set", "system=gb200-nvl72", "--set", "explore.gpus=256",
                 "--set", "precision=bf16", "--format", "json"});
    REQUIRE_MESSAGE(training.exit_code == 0, training.err);
    const json::Value trained = json::parse(training.out)["results"][0];
    CHECK(trained["mode"].as_string() == "projected");
    CHECK(metric(trained, "step_time") > 0);
    CHECK(metric(trained, "mfu") > 0);
    CHECK(metric(trained, "mfu") < 100);  // in %
    const ProcessResult serving = dgxhost({"--plugin", "llm-inference", "--set", model, "--set", "system=b200", "--set",
                                           "serve.fleet_gpus=8", "--format", "json"});
    REQUIRE_MESSAGE(serving.exit_code == 0, serving.err);
    const json::Value doc = json::parse(serving.out);
    const json::Array& served = doc["results"].as_array();
    REQUIRE_FALSE(served.empty());
    CHECK(served[0]["mode"].as_string() == "projected");
  }
}
