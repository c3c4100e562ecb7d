#include "dgx/core/plugin_registry.hpp"

#include <algorithm>

#include "dgx/core/config.hpp"
#include "dgx/core/text.hpp"

namespace dgx {

namespace {

bool is_plugin_file_name(const std::string& name) {
  return text::starts_with(name, "libdgx-") && name.size() > 10 && name.substr(name.size() - 3) == ".so";
}

Failure not_available(std::string message) { return {ExitCode::no_plugin, std::move(message)}; }

}  // namespace

PluginRegistry::~PluginRegistry() {
  // Last loaded first, as a stack unwinds. (An index: clang 14 cannot compile libstdc++ 12's reverse_view.)
  for (std::size_t i = plugins_.size(); i-- > 0;)
    if (plugins_[i]->desc != nullptr && plugins_[i]->desc->shutdown != nullptr) plugins_[i]->desc->shutdown();
}

void PluginRegistry::discover(const std::vector<SearchPath>& paths, const LoadOptions& options) {
  for (const SearchPath& search : paths) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(search.path, ec)) {  // --plugin-dir may name one file
      if (is_plugin_file_name(search.path.filename().string()))
        load_candidate(search.path, options);
      else
        rejections_.push_back({search.path, "not named libdgx-<name>.so (expected a dgx plugin file name)"});
      continue;
    }
    if (!std::filesystem::is_directory(search.path, ec)) {
      if (search.must_exist)
        warnings_.push_back("plugin directory " + search.path.string() + " (" + search.origin + ") does not exist");
      continue;
    }
    std::vector<std::filesystem::path> files;
    std::vector<std::string> misnamed;
    for (const auto& entry : std::filesystem::directory_iterator(search.path, ec)) {
      const std::string name = entry.path().filename().string();
      if (is_plugin_file_name(name))
        files.push_back(entry.path());
      else if (name.find(".so") != std::string::npos)
        misnamed.push_back(name);
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) load_candidate(file, options);
    // In a folder the user named, a shared object that is not loaded because of its name deserves a word.
    if (search.must_exist && !misnamed.empty()) {
      std::sort(misnamed.begin(), misnamed.end());
      if (misnamed.size() > 5) misnamed.resize(5), misnamed.emplace_back("...");
      warnings_.push_back("plugin directory " + search.path.string() + " (" + search.origin +
                          "): ignored shared objects not named libdgx-<name>.so: " + text::join(misnamed, ", "));
    }
  }
}

void PluginRegistry::load_candidate(const std::filesystem::path& file, const LoadOptions& options) {
  std::error_code ec;
  const auto canonical = std::filesystem::weakly_canonical(file, ec);
  if (std::find(seen_files_.begin(), seen_files_.end(), canonical) != seen_files_.end()) return;  // same file twice
  seen_files_.push_back(canonical);

  auto loaded = load_plugin(file, options);
  if (!loaded) {
    rejections_.push_back({file, loaded.error().message});
    return;
  }
  if (const LoadedPlugin* first = find_plugin(loaded.value()->name)) {
    rejections_.push_back({file, "duplicate plugin name '" + first->name + "': already loaded from " +
                                     first->file.string() + " (expected unique names); this copy is ignored"});
    return;
  }
  plugins_.push_back(std::move(loaded.value()));
}

void PluginRegistry::add_preset_files(const std::vector<SearchPath>& config_paths) {
  for (const SearchPath& search : config_paths) {
    std::error_code ec;
    const auto dir = search.path / "workloads";
    if (!std::filesystem::is_directory(dir, ec)) continue;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
      if (entry.path().extension() == ".toml") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      const std::string name = file.stem().string();
      if (std::any_of(file_presets_.begin(), file_presets_.end(), [&](const auto& p) { return p.name == name; }))
        continue;
      auto parsed = load_toml_config(file.string(), "preset '" + name + "'");
      if (!parsed) {
        warnings_.push_back("preset " + file.string() + " ignored: " + parsed.error().message);
        continue;
      }
      const json::Value* workload = parsed->preset.find("workload");
      if (workload == nullptr || !workload->is_string()) {
        warnings_.push_back("preset " + file.string() +
                            " ignored: expected [preset] workload = \"<workload name>\", found none");
        continue;
      }
      const json::Value* summary = parsed->preset.find("summary");
      file_presets_.push_back({name,
                               workload->as_string(),
                               summary != nullptr && summary->is_string() ? summary->as_string() : "",
                               {},
                               file.string()});
    }
  }
}

std::vector<const PresetInfo*> PluginRegistry::presets() const {
  std::vector<const PresetInfo*> out;
  for (const PresetInfo& p : file_presets_) out.push_back(&p);
  for (const auto& plugin : plugins_)
    for (const PresetInfo& p : plugin->presets)
      if (std::none_of(out.begin(), out.end(), [&](const PresetInfo* q) { return q->name == p.name; }))
        out.push_back(&p);
  return out;
}

const LoadedPlugin* PluginRegistry::find_plugin(std::string_view name) const {
  for (const auto& p : plugins_)
    if (p->name == name) return p.get();
  return nullptr;
}

std::vector<std::string> PluginRegistry::all_names() const {
  std::vector<std::string> names;
  for (const PresetInfo* p : presets()) names.push_back(p->name);
  for (const auto& plugin : plugins_) {
    names.push_back(plugin->name);
    for (const WorkloadInfo& w : plugin->workloads) names.push_back(w.name);
  }
  return names;
}

Expected<Target> PluginRegistry::resolve_workload(std::string_view name) const {
  // "plugin:workload" is always unambiguous.
  if (const auto colon = name.find(':'); colon != std::string_view::npos) {
    const LoadedPlugin* plugin = find_plugin(name.substr(0, colon));
    const WorkloadInfo* workload = plugin != nullptr ? plugin->find_workload(name.substr(colon + 1)) : nullptr;
    if (workload == nullptr) return not_available("no workload '" + std::string(name) + "' is loaded");
    return Target{plugin, workload, nullptr};
  }
  std::vector<Target> matches;
  for (const auto& plugin : plugins_)
    if (const WorkloadInfo* w = plugin->find_workload(name)) matches.push_back({plugin.get(), w, nullptr});
  if (matches.size() == 1) return matches.front();
  if (matches.size() > 1) {
    std::vector<std::string> qualified;
    for (const Target& t : matches) qualified.push_back(t.plugin->name + ":" + t.workload->name);
    return Failure{ExitCode::usage, "workload name '" + std::string(name) + "' is offered by several plugins; choose " +
                                        text::join(qualified, " or ")};
  }
  if (const LoadedPlugin* plugin = find_plugin(name)) {
    if (plugin->workloads.size() == 1) return Target{plugin, &plugin->workloads.front(), nullptr};
    std::vector<std::string> qualified;
    for (const WorkloadInfo& w : plugin->workloads) qualified.push_back(plugin->name + ":" + w.name);
    if (qualified.empty()) return not_available("plugin '" + plugin->name + "' offers no workloads");
    return Failure{ExitCode::usage,
                   "plugin '" + plugin->name + "' offers several workloads; choose " + text::join(qualified, ", ")};
  }
  return not_available({});
}

Expected<Target> PluginRegistry::resolve(std::string_view name) const {
  for (const PresetInfo* preset : presets()) {
    if (preset->name != name) continue;
    auto target = resolve_workload(preset->workload);
    if (!target) {
      const std::string reason = target.error().message.empty() ? "no loaded plugin offers it" : target.error().message;
      return Failure{target.error().code, "preset '" + preset->name + "' runs workload '" + preset->workload +
                                              "': " + reason + " (dgxhost --list shows plugins and rejected files)"};
    }
    target->preset = preset;
    return target;
  }
  auto target = resolve_workload(name);
  if (target || !target.error().message.empty()) return target;

  // Not found: a rejected file of that name explains more than a list of guesses.
  const std::string file_name = "libdgx-" + std::string(name) + ".so";
  for (const PluginRejection& r : rejections_)
    if (r.file.filename() == file_name)
      return not_available("plugin '" + std::string(name) + "' was found but rejected: " + r.line());
  std::string message = "no plugin, workload or preset named '" + std::string(name) + "'";
  if (const auto suggestion = text::did_you_mean(text::close_matches(name, all_names(), 5)); !suggestion.empty())
    message += "; " + suggestion;
  message += " (dgxhost --list shows what is available";
  if (!rejections_.empty()) message += "; " + std::to_string(rejections_.size()) + " plugin file(s) were rejected";
  return not_available(message + ")");
}

}  // namespace dgx
