// All plugins found on the search path, the files rejected on the way (each with its reason), and the presets:
// what the name a user types after --plugin may resolve to (plugin_option.hpp).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dgx/core/config/search_paths.hpp"
#include "dgx/core/plugin/plugin_loader.hpp"
#include "dgx/core/results/document.hpp"
#include "dgx/core/support/expected.hpp"
#include "dgx/core/support/printable.hpp"

namespace dgx {

struct PluginRejection {
  std::filesystem::path file;
  std::string reason;

  /// "<file>: <reason>", the one line --list prints (made printable: a file name may hold anything).
  [[nodiscard]] std::string line() const { return printable(file.string()) + ": " + printable(reason); }
};

/// What --plugin NAME resolved to (plugin_option.hpp).
struct Target {
  const LoadedPlugin* plugin = nullptr;
  const WorkloadInfo* workload = nullptr;
  const PresetInfo* preset = nullptr;  // when NAME was a preset
};

class PluginRegistry {
public:
  PluginRegistry() = default;
  PluginRegistry(const PluginRegistry&) = delete;
  PluginRegistry& operator=(const PluginRegistry&) = delete;
  PluginRegistry(PluginRegistry&&) = default;  // the moved-from registry holds no plugins to shut down
  PluginRegistry& operator=(PluginRegistry&&) = delete;
  /// Calls shutdown() unless it was called.
  ~PluginRegistry();

  /// Calls every loaded plugin's shutdown() once, last loaded first, as abi/v1.h promises ("called once before
  /// exit"), each inside a CallGuard with a deadline of the grace period. With the run's `exit_code`, stdout is
  /// flushed first and a plugin that crashes, exits or hangs there cannot change that code (it is warned about).
  void shutdown(std::optional<int> exit_code = std::nullopt);

  /// Loads every libdgx-*.so on `paths` (in order; the first plugin of a name wins).
  void discover(const std::vector<SearchPath>& paths, const LoadOptions& options);
  /// Reads the presets in <config dir>/workloads/*.toml; the first directory that has a name wins, and files
  /// override presets embedded in plugins.
  void add_preset_files(const std::vector<SearchPath>& config_paths);

  [[nodiscard]] const std::vector<std::unique_ptr<LoadedPlugin>>& plugins() const { return plugins_; }
  [[nodiscard]] const std::vector<PluginRejection>& rejections() const { return rejections_; }
  [[nodiscard]] const std::vector<std::string>& warnings() const { return warnings_; }
  /// Every preset: files first, then those embedded in plugins and not overridden.
  [[nodiscard]] std::vector<const PresetInfo*> presets() const;
  [[nodiscard]] const LoadedPlugin* find_plugin(std::string_view name) const;
  /// The formats of other tools' output the loaded plugins read (ABI 1.2), in load order; a name twice goes to the
  /// first plugin (the later one's is dropped with a warning).
  [[nodiscard]] std::vector<const FormatInfo*> formats() const;
  [[nodiscard]] const FormatInfo* find_format(std::string_view name) const;
  /// Adds to report.workloads what the loaded plugins declare of the workloads of its rows, where the report does not
  /// say already (rows read from a file of an older dgxhost, or judged against their projection).
  void declare_rows(Report& report) const;

private:
  void load_candidate(const std::filesystem::path& file, const LoadOptions& options);

  std::vector<std::unique_ptr<LoadedPlugin>> plugins_;
  std::vector<PluginRejection> rejections_;
  std::vector<std::string> warnings_;
  std::vector<std::filesystem::path> seen_files_;
  std::vector<PresetInfo> file_presets_;
  bool shut_down_ = false;
};

}  // namespace dgx
