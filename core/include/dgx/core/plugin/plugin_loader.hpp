// Loading one plugin file: open it and negotiate the ABI version (plugin_open.hpp), lift its descriptor into the
// host's types with the adapter of that major version (descriptor_adapter.hpp), then call its init(). A plugin that
// fails any step is rejected with a one-line reason naming what was expected and what was found; nothing it did
// can take the host down.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <dgx/plugin.h>

#include "dgx/core/config/layered_config.hpp"
#include "dgx/core/plugin/plugin_open.hpp"
#include "dgx/core/results/workload_declarations.hpp"
#include "dgx/core/support/expected.hpp"

namespace dgx {

std::string_view kind_name(dgx_workload_kind kind);
std::string_view mode_name(dgx_mode mode);

struct LoadedPlugin;

struct WorkloadInfo {
  std::string name;
  dgx_workload_kind kind = DGX_KIND_MICRO;
  std::string summary;
  std::vector<std::string> precisions;
  std::vector<ParamSpec> params;
  std::uint32_t modes = 0;
  /// What it declares of its rows (ABI 1.1): metrics, identity keys, charts; empty for a plugin of ABI 1.0.
  WorkloadDeclarations declarations;
  /// The workload's entry points in the current ABI's layout (v1), which WorkloadInstance calls. An adapter for
  /// an older major version would point this at a current-layout descriptor of wrappers.
  const dgx_workload_desc* desc = nullptr;
  const LoadedPlugin* plugin = nullptr;

  [[nodiscard]] bool supports(dgx_mode mode) const { return (modes & DGX_MODE_BIT(mode)) != 0; }
  /// "measure, project"
  [[nodiscard]] std::string mode_list() const;
};

struct PresetInfo {
  std::string name;
  std::string workload;
  std::string summary;
  std::string config_toml;  // embedded presets
  std::string file;         // presets from configs/workloads/; empty when embedded in a plugin
};

/// A format of other tools' output a plugin reads (ABI 1.2): dgxhost import asks its probe and hands it the text.
struct FormatInfo {
  std::string name;
  std::string summary;
  const dgx_format_desc* desc = nullptr;
  const LoadedPlugin* plugin = nullptr;
};

struct LoadedPlugin {
  std::filesystem::path file;
  std::string name;
  std::string version;
  std::string vendor;
  std::string description;
  std::uint32_t abi_version = 0;          // the version the plugin implements
  const dgx_plugin_desc* desc = nullptr;  // its init/shutdown/probe, in the current ABI's layout (see WorkloadInfo)
  std::vector<WorkloadInfo> workloads;
  std::vector<PresetInfo> presets;
  std::vector<FormatInfo> formats;  // ABI 1.2; empty for older plugins

  [[nodiscard]] const WorkloadInfo* find_workload(std::string_view workload_name) const;
};

struct LoadOptions {
  bool allow_insecure = false;
  const dgx_host_api* init_host = nullptr;  // services handed to the plugin's init(); must outlive the process
  /// Open and initialise the file in a child process first (plugin_probe.hpp), so that a crash there is a
  /// rejection instead of the host's end.
  bool probe = true;
};

/// Loads and validates `file`: checked and resolved once (plugin_open.hpp), checked in a child unless
/// `options.probe` is false, then opened by its resolved path and initialised. On failure the message is the reason
/// only; the caller prefixes the file name. The library is never unloaded, even when rejected after opening (its
/// code may still be referenced).
Expected<std::unique_ptr<LoadedPlugin>> load_plugin(const std::filesystem::path& file, const LoadOptions& options);

/// The part after the checks (and the child's): open, lift and init. `recovery` is for a file that passed the
/// child's check (crash_report.hpp).
Expected<std::unique_ptr<LoadedPlugin>> load_checked_plugin(const CheckedFile& file, const LoadOptions& options,
                                                            const detail::LoadRecovery& recovery = {});

}  // namespace dgx
