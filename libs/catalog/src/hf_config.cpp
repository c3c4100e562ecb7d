// The front door of the Hugging Face reader: which files, which architecture, which name; the architectures' readers
// (src/hf/) fill the model, the checkpoint's format comes from quantization_config or hf_quant_config.json.
#include "dgx/catalog/hf_config.hpp"

#include "dgx/catalog/catalog_files.hpp"
#include "dgx/catalog/small_file.hpp"

#include <dgx/sdk/text.hpp>

#include "hf/architectures.hpp"
#include "hf/quantization.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

namespace dgx::catalog {

namespace hf {

namespace {

constexpr Architecture kArchitectures[] = {
    {"LlamaForCausalLM", read_llama},
    {"MixtralForCausalLM", read_llama},
    {"Llama4ForConditionalGeneration", read_llama4},
    {"Qwen3ForCausalLM", read_qwen3},
    {"Qwen3MoeForCausalLM", read_qwen3},
    {"Qwen3_5ForConditionalGeneration", read_qwen3_5},
    {"Qwen3_5MoeForConditionalGeneration", read_qwen3_5},
    {"DeepseekV3ForCausalLM", read_deepseek},
    {"DeepseekV32ForCausalLM", read_deepseek},
    {"KimiK25ForConditionalGeneration", read_kimi_k25},
    {"GlmMoeDsaForCausalLM", read_deepseek},
    {"MiniMaxM2ForCausalLM", read_minimax_m2},
    {"GptOssForCausalLM", read_gpt_oss},
    {"NemotronHForCausalLM", read_nemotron_h},
    {"DeciLMForCausalLM", read_decilm},
};

}  // namespace

std::span<const Architecture> architectures() { return kArchitectures; }

}  // namespace hf

namespace {

namespace fs = std::filesystem;
namespace text = dgx::sdk::text;

constexpr std::string_view kConfigName = "config.json";
/// A copy of a repository's config.json named for it: "<org>--<name>_config.json" (tests/libs/catalog/data).
constexpr std::string_view kNamedSuffix = "_config.json";
/// Without a stated pretraining context, the default training sequence (the catalog's MoE models' 4096).
constexpr int kDefaultSeqLen = 4096;

/// The config.json to read and the hf_quant_config.json beside it (which need not exist).
struct ConfigFiles {
  fs::path config;
  fs::path quant;
};

ConfigFiles locate(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    return {path / kConfigName, path / "hf_quant_config.json"};
  }
  const std::string file = path.filename().string();
  const std::string prefix = file.ends_with(kConfigName) ? file.substr(0, file.size() - kConfigName.size()) : "";
  return {path, file.ends_with(kConfigName) ? path.parent_path() / (prefix + "hf_quant_config.json") : fs::path()};
}

/// The repository a config.json belongs to, as its path says: "org/name", or the folder's name.
std::string repository(const fs::path& config) {
  const std::string file = config.filename().string();
  std::string repo;
  if (file.ends_with(kNamedSuffix) && file.size() > kNamedSuffix.size()) {
    repo = file.substr(0, file.size() - kNamedSuffix.size());
  } else {
    std::error_code ec;
    const fs::path folder = fs::absolute(config, ec).parent_path();
    const fs::path above = folder.parent_path();
    repo = above.filename() == "snapshots" ? above.parent_path().filename().string() : folder.filename().string();
    if (repo.starts_with("models--")) {  // the Hugging Face cache: models--org--name/snapshots/<hash>/
      repo.erase(0, std::string_view("models--").size());
    }
  }
  if (const std::size_t dashes = repo.find("--"); dashes != std::string::npos) {
    repo.replace(dashes, 2, "/");
  }
  return repo.empty() ? "model" : repo;
}

/// The catalog's name for a repository: its name without the organisation, lower case, [a-z0-9._-] only.
std::string catalog_name(const std::string& repo) {
  std::string name;
  for (const char c : repo.substr(repo.find('/') + 1)) {
    const auto u = static_cast<unsigned char>(c);
    name += std::isalnum(u) != 0 || c == '.' || c == '_' || c == '-' ? static_cast<char>(std::tolower(u)) : '-';
  }
  return name;
}

const hf::Architecture& architecture(const hf::JsonFields& root) {
  const std::vector<std::string> named = root.strings("architectures");
  for (const std::string& name : named) {
    const auto all = hf::architectures();
    const auto it = std::find_if(all.begin(), all.end(), [&](const hf::Architecture& a) { return a.name == name; });
    if (it != all.end()) {
      return *it;
    }
  }
  const std::string first = named.empty() ? std::string() : named.front();
  const std::vector<std::string> known = hf_config_architectures();
  const std::string suggestion = text::did_you_mean(text::close_matches(first, known, 3));
  root.fail("architectures", "names " + (first.empty() ? std::string("none") : "\"" + first + "\"") +
                                 ", an architecture dgxhost does not read" +
                                 (suggestion.empty() ? "" : "; " + suggestion) + " It reads: " + text::join(known));
}

nlohmann::json parse_file(const fs::path& path) {
  auto text = read_small_file(path, kMaxCatalogFileBytes);
  if (!text) {
    throw hf::HfError(path.string() + ": " + text.error().message);
  }
  return hf::parse_json(*text, path.string());
}

/// The checkpoint's format: hf_quant_config.json where it lies beside the config, else quantization_config (the
/// root's or the text config's), else BF16.
CheckpointFormat checkpoint_format(const hf::JsonFields& root, const fs::path& quant, hf::HfModel& out) {
  std::error_code ec;
  if (!quant.empty() && fs::exists(fs::symlink_status(quant, ec))) {
    const nlohmann::json document = parse_file(quant);
    return hf::read_modelopt_quantization(hf::JsonFields(document, quant.string()), out.model, out.notes);
  }
  const hf::JsonFields t = hf::text_config(root);
  for (const hf::JsonFields* fields : {&root, &t}) {
    if (fields->has("quantization_config")) {
      return hf::read_quantization_config(fields->object("quantization_config"), out.model, out.notes);
    }
  }
  return {};
}

/// The default training sequence: the pretraining context the config states, else kDefaultSeqLen; at most the
/// context.
void set_seq_len(hf::HfModel& out) {
  ModelConfig& m = out.model;
  m.seq_len = std::min(out.native_context > 0 ? out.native_context : kDefaultSeqLen, m.context);
  out.notes.push_back("seq_len " + std::to_string(m.seq_len) +
                      (out.native_context > 0 ? ": the pretraining context the config states"
                                              : ": dgxhost's default training sequence"));
}

ModelConfig read_config(const fs::path& path) {
  const ConfigFiles files = locate(path);
  const nlohmann::json document = parse_file(files.config);
  const hf::JsonFields root(document, files.config.string());
  hf::HfModel out;
  architecture(root).read(root, out);
  out.model.checkpoint = checkpoint_format(root, files.quant, out);
  set_seq_len(out);
  const std::string repo = repository(files.config);
  ModelConfig& m = out.model;
  m.name = catalog_name(repo);
  m.display = repo.substr(repo.find('/') + 1);
  std::error_code ec;
  const bool modelopt = !files.quant.empty() && fs::exists(fs::symlink_status(files.quant, ec));
  m.source = std::string(modelopt ? "config.json and hf_quant_config.json" : "config.json") + " of " + repo;
  if (!out.notes.empty()) {
    m.source += ": " + text::join(out.notes, "; ");
  }
  m.checkpoints = {repo};
  return m;
}

}  // namespace

Expected<ModelConfig> read_hf_config(const std::filesystem::path& path) {
  try {
    return read_config(path);
  } catch (const hf::HfError& error) {
    return Error{error.what()};
  }
}

std::vector<std::string> hf_config_architectures() {
  std::vector<std::string> names;
  for (const hf::Architecture& a : hf::architectures()) {
    names.emplace_back(a.name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool names_hf_config(std::string_view name) {
  if (name.ends_with(".json")) {
    return true;
  }
  std::error_code ec;
  const fs::path folder{std::string(name)};
  return fs::is_directory(folder, ec) && fs::is_regular_file(folder / kConfigName, ec);
}

}  // namespace dgx::catalog
