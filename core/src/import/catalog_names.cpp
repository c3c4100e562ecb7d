#include "catalog_names.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <toml++/toml.h>

#include "dgx/core/config/search_paths.hpp"
#include "dgx/core/config/toml_reader.hpp"
#include "log_text.hpp"

namespace dgx::detail {

namespace {

// Lower case, letters and digits only, without an organisation prefix or an instruct/chat suffix: the tools
// spell one model many ways ("Meta-Llama-3.1-70B-Instruct", "llama31_70b").
std::string normalized(std::string_view printed) {
  const std::size_t slash = printed.rfind('/');
  if (slash != std::string_view::npos) {
    printed.remove_prefix(slash + 1);
  }
  std::string key;
  for (char c : printed) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      key.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  for (const char* suffix : {"instruct", "chat", "hf", "base"}) {
    const std::string s = suffix;
    if (key.size() > s.size() && key.compare(key.size() - s.size(), s.size(), s) == 0) {
      key.erase(key.size() - s.size());
    }
  }
  if (key.rfind("meta", 0) == 0) {
    key.erase(0, 4);
  }
  return key;
}

// The printed spellings (normalized) that are not a catalog name once normalized.
const std::map<std::string, std::string>& model_table() {
  static const std::map<std::string, std::string> table = {
      {"llama31405b", "llama3.1-405b"},  // MLPerf llama31_405b, Meta-Llama-3.1-405B
      {"llama3405b", "llama3.1-405b"},   // torchtitan "llama3 405B" (the 3.1 architecture)
      {"llama3170b", "llama3.1-70b"},
      {"llama370b", "llama3-70b"},
      {"llama318b", "llama3.1-8b"},  // MLPerf llama31_8b
      {"llama38b", "llama3.1-8b"},   // torchtitan "llama3 8B": the 3.1 8B architecture
      {"llama270b", "llama2-70b"},
      {"llama270blora", "llama2-70b"},  // MLPerf llama2_70b_lora
      {"llama213b", "llama2-13b"},
      {"llama27b", "llama2-7b"},
      {"gpt3", "gpt3-175b"},  // MLPerf gpt3
      {"gpt3175b", "gpt3-175b"},
      {"nemotron4340b", "nemotron4-340b"},
      {"nemotron4340b", "nemotron4-340b"},
      {"deepseekv3", "deepseek-v3"},
      {"deepseekv3671b", "deepseek-v3"},
      {"qwen3235ba22b", "qwen3-235b-a22b"},
      {"qwen330ba3b", "qwen3-30b-a3b"},
      {"mixtral8x7b", "mixtral-8x7b"},
      {"mixtral8x22b", "mixtral-8x22b"},
      {"gptoss120b", "gpt-oss-120b"},
  };
  return table;
}

std::filesystem::path configs_dir(const char* folder) {
  const auto paths = config_search_paths({}, std::getenv("DGX_CONFIG_PATH"), executable_directory());
  std::error_code ec;
  for (const SearchPath& p : paths) {
    if (std::filesystem::is_directory(p.path / folder, ec)) {
      return p.path / folder;
    }
  }
  return {};
}

std::vector<std::string> names_in(const char* folder) {
  std::vector<std::string> names;
  const std::filesystem::path dir = configs_dir(folder);
  std::error_code ec;
  if (dir.empty()) {
    return names;
  }
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".toml") {
      names.push_back(entry.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

// One system file of the catalog as TOML; an empty table when it is absent or does not parse (the run that uses the
// system reports that, with the file's line).
toml::table system_file(const std::string& system) {
  const std::filesystem::path dir = configs_dir("systems");
  if (dir.empty()) {
    return {};
  }
  try {
    return toml::parse_file((dir / (system + ".toml")).string());
  } catch (const std::exception&) {
    return {};
  }
}

// The device names a system answers to: its own `device_names`, else (`inherited`) those of the system it inherits:
// a variant of a GPU (another memory, a power cap) keeps the GPU's names.
std::vector<std::string> device_names(const std::string& system, bool inherited, int depth = 0) {
  const toml::table file = system_file(system);
  std::vector<std::string> names;
  if (const toml::array* list = file["device_names"].as_array()) {
    for (const toml::node& n : *list) {
      if (const auto name = n.value<std::string>()) {
        names.push_back(*name);
      }
    }
  }
  const auto parent = file["inherits"].value<std::string>();
  if (names.empty() && inherited && parent && depth < 8) {
    return device_names(*parent, true, depth + 1);
  }
  return names;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

bool matches_as_words(const std::string& device, const std::string& pattern) {
  for (std::size_t at = device.find(pattern); at != std::string::npos; at = device.find(pattern, at + 1)) {
    const std::size_t end = at + pattern.size();
    if ((at == 0 || !word_char(device[at - 1])) && (end == device.size() || !word_char(device[end]))) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::optional<std::string> catalog_model(std::string_view printed) {
  const std::string key = normalized(printed);
  for (const std::string& name : catalog_models()) {
    if (normalized(name) == key) {
      return name;
    }
  }
  const auto& table = model_table();
  const auto it = table.find(key);
  return it == table.end() ? std::nullopt : std::optional<std::string>(it->second);
}

std::vector<std::string> catalog_models() { return names_in("models"); }

std::vector<std::string> catalog_systems() { return names_in("systems"); }

std::optional<std::string> system_of_device(std::string_view device) {
  const std::string name = lower(device);
  std::size_t best = 0;
  std::vector<std::string> winners;
  for (const std::string& system : catalog_systems()) {
    // Only a system's own names: a variant that answers through its parent's (a power cap, another memory) is
    // chosen by --set, never by the device name alone.
    for (const std::string& pattern : device_names(system, false)) {
      if (!matches_as_words(name, lower(pattern)) || pattern.size() < best) {
        continue;
      }
      if (pattern.size() > best) {
        winners.clear();
        best = pattern.size();
      }
      winners.push_back(system);
    }
  }
  return winners.size() == 1 ? std::optional<std::string>(winners.front()) : std::nullopt;
}

bool system_answers_to(const std::string& system, std::string_view device) {
  const std::string name = lower(device);
  const std::vector<std::string> patterns = device_names(system, true);
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& p) { return matches_as_words(name, lower(p)); });
}

std::vector<std::string> models_of_architecture(const Architecture& printed) {
  const std::filesystem::path dir = configs_dir("models");
  std::vector<std::string> matches;
  if (dir.empty() || printed.layers == 0 || printed.hidden == 0) {
    return matches;  // layers and hidden at least: fewer fields would match too much
  }
  for (const std::string& model : catalog_models()) {
    toml::table file;
    try {
      file = toml::parse_file((dir / (model + ".toml")).string());
    } catch (const std::exception&) {
      continue;
    }
    auto agrees = [&](const char* key, long value) { return value == 0 || file[key].value<long>() == value; };
    if (agrees("layers", printed.layers) && agrees("hidden", printed.hidden) && agrees("ffn", printed.ffn) &&
        agrees("heads", printed.heads) && agrees("kv_groups", printed.kv_groups) &&
        agrees("experts", printed.experts)) {
      matches.push_back(model);
    }
  }
  return matches;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    out += (out.empty() ? "" : ", ") + n;
  }
  return out;
}

}  // namespace dgx::detail
