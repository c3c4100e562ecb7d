// Loading one plugin file: open it with Boost.DLL, find the entry symbol, negotiate the ABI version, and
// validate every descriptor before the host trusts it. A plugin that fails any step is rejected with a
// one-line reason naming what was expected and what was found; nothing it did can take the host down.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <dgx/plugin.h>

#include "dgx/core/config.hpp"
#include "dgx/core/expected.hpp"

namespace dgx {

/// The ABI versions this host speaks.
inline constexpr std::uint32_t kHostAbiMin = DGX_ABI_V1_0;
inline constexpr std::uint32_t kHostAbiMax = DGX_ABI_V1_0;

/// "1.0"
std::string abi_version_string(std::uint32_t version);
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

struct LoadedPlugin {
  std::filesystem::path file;
  std::string name;
  std::string version;
  std::string vendor;
  std::string description;
  std::uint32_t abi_version = 0;
  const dgx_plugin_desc* desc = nullptr;
  std::vector<WorkloadInfo> workloads;
  std::vector<PresetInfo> presets;

  [[nodiscard]] const WorkloadInfo* find_workload(std::string_view workload_name) const;
};

struct LoadOptions {
  bool allow_insecure = false;
  const dgx_host_api* init_host = nullptr;  // services handed to the plugin's init(); must outlive the process
};

/// Why a path must not be loaded: it, or its directory, is writable by group or others. Empty when safe.
std::string insecure_permissions(const std::filesystem::path& file);

/// Loads and validates `file`. On failure the message is the reason only; the caller prefixes the file name.
/// The library is never unloaded, even when rejected after opening (its code may still be referenced).
Expected<std::unique_ptr<LoadedPlugin>> load_plugin(const std::filesystem::path& file, const LoadOptions& options);

}  // namespace dgx
