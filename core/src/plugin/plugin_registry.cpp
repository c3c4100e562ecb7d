#include "dgx/core/plugin/plugin_registry.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "dgx/core/config/layered_config.hpp"
#include "dgx/core/config/toml_reader.hpp"
#include "dgx/core/plugin/call_guard.hpp"
#include "dgx/core/plugin/cancellation.hpp"
#include "dgx/core/support/text.hpp"

namespace dgx {

namespace {

bool is_plugin_file_name(const std::string& name) {
  return text::starts_with(name, "libdgx-") && name.size() > 10 && name.substr(name.size() - 3) == ".so";
}

}  // namespace

PluginRegistry::~PluginRegistry() { shutdown(); }

void PluginRegistry::shutdown(std::optional<int> exit_code) {
  if (shut_down_) {
    return;
  }
  shut_down_ = true;
  if (exit_code) {
    // What the run reported is out before a plugin's shutdown() can end the process, and a shutdown() that
    // crashes, exits or hangs then keeps the run's exit code (crash_report.hpp).
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    set_final_exit_code(*exit_code);
  }
  // Last loaded first, as a stack unwinds. (An index: clang 14 cannot compile libstdc++ 12's reverse_view.)
  for (std::size_t i = plugins_.size(); i-- > 0;) {
    const LoadedPlugin& plugin = *plugins_[i];
    if (plugin.desc == nullptr || plugin.desc->shutdown == nullptr) {
      continue;
    }
    const std::string call = plugin.name + ": shutdown()";
    const CallDeadline deadline(steady_seconds(), "of being called, as dgxhost was exiting");
    const CallGuard guard(call);
    plugin.desc->shutdown();
  }
}

void PluginRegistry::discover(const std::vector<SearchPath>& paths, const LoadOptions& options) {
  for (const SearchPath& search : paths) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(search.path, ec)) {  // --plugin-dir may name one file
      if (is_plugin_file_name(search.path.filename().string())) {
        load_candidate(search.path, options);
      } else {
        rejections_.push_back({search.path, "not named libdgx-<name>.so (expected a dgx plugin file name)"});
      }
      continue;
    }
    if (!std::filesystem::is_directory(search.path, ec)) {
      if (search.must_exist) {
        warnings_.push_back("plugin directory " + search.path.string() + " (" + search.origin + ") does not exist");
      }
      continue;
    }
    std::vector<std::filesystem::path> files;
    std::vector<std::string> misnamed;
    for (const auto& entry : std::filesystem::directory_iterator(search.path, ec)) {
      const std::string name = entry.path().filename().string();
      if (is_plugin_file_name(name)) {
        files.push_back(entry.path());
      } else if (name.find(".so") != std::string::npos) {
        misnamed.push_back(name);
      }
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      load_candidate(file, options);
    }
    // In a folder the user named, a shared object that is not loaded because of its name deserves a word.
    if (search.must_exist && !misnamed.empty()) {
      std::sort(misnamed.begin(), misnamed.end());
      if (misnamed.size() > 5) {
        misnamed.resize(5), misnamed.emplace_back("...");
      }
      warnings_.push_back("plugin directory " + search.path.string() + " (" + search.origin +
                          "): ignored shared objects not named libdgx-<name>.so: " + text::join(misnamed, ", "));
    }
  }
}

void PluginRegistry::load_candidate(const std::filesystem::path& file, const LoadOptions& options) {
  std::error_code ec;
  const auto canonical = std::filesystem::weakly_canonical(file, ec);
  if (std::find(seen_files_.begin(), seen_files_.end(), canonical) != seen_files_.end()) {
    return;  // same file twice
  }
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
  // A format two plugins read goes to the first: which reads a file must not depend on the order probes tie in.
  auto& formats = loaded.value()->formats;
  for (auto f = formats.begin(); f != formats.end();) {
    const FormatInfo* first = find_format(f->name);
    if (first == nullptr) {
      ++f;
      continue;
    }
    warnings_.push_back(file.string() + ": format '" + f->name + "' is read by plugin " + first->plugin->name +
                        " already; this plugin's reader of it is ignored");
    f = formats.erase(f);
  }
  plugins_.push_back(std::move(loaded.value()));
}

std::vector<const FormatInfo*> PluginRegistry::formats() const {
  std::vector<const FormatInfo*> out;
  for (const auto& p : plugins_) {
    for (const FormatInfo& f : p->formats) {
      out.push_back(&f);
    }
  }
  return out;
}

const FormatInfo* PluginRegistry::find_format(std::string_view name) const {
  for (const auto& p : plugins_) {
    for (const FormatInfo& f : p->formats) {
      if (f.name == name) {
        return &f;
      }
    }
  }
  return nullptr;
}

void PluginRegistry::add_preset_files(const std::vector<SearchPath>& config_paths) {
  for (const SearchPath& search : config_paths) {
    std::error_code ec;
    const auto dir = search.path / "workloads";
    if (!std::filesystem::is_directory(dir, ec)) {
      continue;
    }
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      if (entry.path().extension() == ".toml") {
        files.push_back(entry.path());
      }
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      const std::string name = file.stem().string();
      if (std::any_of(file_presets_.begin(), file_presets_.end(), [&](const auto& p) { return p.name == name; })) {
        continue;
      }
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
  for (const PresetInfo& p : file_presets_) {
    out.push_back(&p);
  }
  for (const auto& plugin : plugins_) {
    for (const PresetInfo& p : plugin->presets) {
      if (std::none_of(out.begin(), out.end(), [&](const PresetInfo* q) { return q->name == p.name; })) {
        out.push_back(&p);
      }
    }
  }
  return out;
}

const LoadedPlugin* PluginRegistry::find_plugin(std::string_view name) const {
  for (const auto& p : plugins_) {
    if (p->name == name) {
      return p.get();
    }
  }
  return nullptr;
}

void PluginRegistry::declare_rows(Report& report) const {
  for (const ResultRow& row : report.rows) {
    if (declarations_for(report.workloads, row) != nullptr) {
      continue;
    }
    for (const auto& plugin : plugins_) {
      const WorkloadInfo* w = plugin->find_workload(row.workload);
      if (w != nullptr && (row.plugin.empty() || row.plugin == plugin->name)) {
        add_declarations(report.workloads, w->declarations);
        break;
      }
    }
  }
}

}  // namespace dgx
