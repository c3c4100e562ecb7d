#include "params.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "dgx/llm/catalog.hpp"
#include "llm_host.hpp"
#include "plugin.hpp"

using namespace dgx::plugins::llm_pretrain;
using PretrainHost = dgx::testing::LlmHost<PretrainWorkload, pretrain_params>;

namespace {

std::set<std::string> schema_keys() {
  std::set<std::string> keys;
  for (const dgx::sdk::Param& p : pretrain_params()) {
    keys.insert(p.key);
  }
  return keys;
}

/// The config keys a preset file sets: every "key = value" line outside the preset.* metadata.
std::vector<std::string> preset_keys(std::string_view text) {
  std::vector<std::string> keys;
  std::istringstream lines{std::string(text)};
  for (std::string line; std::getline(lines, line);) {
    const auto eq = line.find('=');
    if (line.empty() || line[0] == '#' || line[0] == '[' || eq == std::string::npos) {
      continue;
    }
    std::string key = line.substr(0, eq);
    key.erase(key.find_last_not_of(' ') + 1);
    if (key.rfind("preset.", 0) != 0) {
      keys.push_back(key);
    }
  }
  return keys;
}

}  // namespace

TEST_CASE("the schema declares the interface keys of issue 3 with help and unique names") {
  const auto params = pretrain_params();
  const std::set<std::string> keys = schema_keys();
  CHECK(keys.size() == params.size());
  for (const char* k : {"model",
                        "system",
                        "gpus",
                        "precision",
                        "parallel.tp",
                        "parallel.pp",
                        "parallel.cp",
                        "parallel.vp",
                        "parallel.ep",
                        "train.mbs",
                        "train.gbs",
                        "train.seq_len",
                        "train.tokens",
                        "train.recompute",
                        "cost.provider",
                        "explore.gpus",
                        "explore.gpus_min",
                        "explore.gpus_max",
                        "explore.gbs_per_gpu",
                        "explore.budget_slack",
                        "explore.deadline_days"}) {
    CHECK_MESSAGE(keys.count(k) == 1, k);
  }
  for (const dgx::sdk::Param& p : params) {
    CHECK_MESSAGE(!p.help.empty(), p.key);
  }
  const auto precision =
      std::find_if(params.begin(), params.end(), [](const auto& p) { return p.key == key::precision; });
  CHECK(precision->type == DGX_PARAM_STRING_LIST);
  CHECK(precision->choices == "bf16|fp8|mxfp8|nvfp4");
}

TEST_CASE("every key of every embedded llm-pretrain preset is a declared parameter") {
  const std::set<std::string> keys = schema_keys();
  int presets = 0;
  for (const dgx::llm::EmbeddedFile& file : dgx::llm::embedded_configs()) {
    if (file.path.rfind("workloads/", 0) != 0) {
      continue;
    }
    if (file.text.find("preset.workload = \"llm-pretrain\"") == std::string_view::npos) {
      continue;
    }
    ++presets;
    for (const std::string& k : preset_keys(file.text)) {
      CHECK_MESSAGE(keys.count(k) == 1, file.path << ": " << k);
    }
  }
  CHECK(presets == 11);
}

TEST_CASE("the defaults are the llama8b preset, so the workload alone projects something meaningful") {
  PretrainHost defaults;
  PretrainHost preset;
  preset.use_preset("llama8b");
  // Named members, not a structured binding: CHECK_MESSAGE's lambda captures them, which clang 14 (clang-tidy) rejects.
  for (const auto& entry : preset.config) {
    const auto& k = entry.first;
    const auto& value = entry.second;
    if (k == key::seq_len) {  // the default 0 means the model's own, which is the preset's 8192
      CHECK(std::get<std::int64_t>(value) == 8192);
      continue;
    }
    CHECK_MESSAGE(defaults.config.at(k) == value, k);
  }
  CHECK(defaults.config.count(key::deadline_days) == 0);  // optional: no default
  CHECK(defaults.config.count(key::usd_per_gpu_hour) == 0);
}
