// Opening one plugin library, the part of loading that is the same for every ABI version: the file must be a
// regular file nobody else can write, an ELF shared object that dlopen accepts, and export the entry symbol,
// whose signature never changes. Calling it negotiates the version; what the descriptor it returns means is the
// business of the adapter for that version's major number (descriptor_adapter.hpp). Libraries are never unloaded.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include <dgx/plugin.h>

#include "dgx/core/support/expected.hpp"

namespace dgx {

/// The ABI versions this host speaks.
inline constexpr std::uint32_t kHostAbiMin = DGX_ABI_V1_0;
inline constexpr std::uint32_t kHostAbiMax = DGX_ABI_V1_0;

/// "1.0"
std::string abi_version_string(std::uint32_t version);

/// An opened library whose entry symbol answered the host's offer with a version this host speaks.
struct OpenedPlugin {
  std::filesystem::path file;
  /// The plugin's descriptor, laid out as ABI `abi_version` says. Only its first two fields (struct_size,
  /// abi_version) are common to every ABI; everything else is read by the adapter of that major version.
  const void* descriptor = nullptr;
  std::uint32_t struct_size = 0;
  std::uint32_t abi_version = 0;
  dgx_status entry_status = DGX_OK;  // what the entry symbol returned
};

/// The checks that need no loading: a regular file, safe to load (secure_path.hpp), an ELF object. nullopt when
/// it passes; otherwise the reason, as for open_plugin.
std::optional<Failure> check_plugin_file(const std::filesystem::path& file, bool allow_insecure);

/// Opens `file`, calls its entry symbol and checks the version it answers with against kHostAbiMin..Max. On
/// failure the message is the reason only (the caller names the file); the code is ExitCode::no_plugin.
Expected<OpenedPlugin> open_plugin(const std::filesystem::path& file, bool allow_insecure);

}  // namespace dgx
