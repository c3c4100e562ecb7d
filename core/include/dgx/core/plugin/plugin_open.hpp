// Opening one plugin library, the part of loading that is the same for every ABI version: the file must be a
// regular file nobody else can write, an ELF shared object that dlopen accepts, and export the entry symbol,
// whose signature never changes. Calling it negotiates the version; what the descriptor it returns means is the
// business of the adapter for that version's major number (descriptor_adapter.hpp). Libraries are never unloaded.
//
// A file is resolved and checked once (check_plugin_file), and everything after that (the check in a child, the
// verdict cache's key, dlopen) uses the resolved path and the identity read from the file then: what is loaded
// is what was checked, whatever a symlink on the way points to by then.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include <dgx/plugin.h>

#include "dgx/core/plugin/crash_report.hpp"
#include "dgx/core/support/expected.hpp"

namespace dgx {

/// The ABI versions this host speaks.
inline constexpr std::uint32_t kHostAbiMin = DGX_ABI_V1_0;
inline constexpr std::uint32_t kHostAbiMax = DGX_ABI_V1_3;

/// "1.0"
std::string abi_version_string(std::uint32_t version);

/// What identifies a file's contents for the verdict cache (plugin_probe.hpp): a rewrite in place changes its
/// ctime even when size and modification time are kept, and its hash catches a copy with forged times.
struct FileIdentity {
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::int64_t ctime_ns = 0;
  std::uint64_t hash = 0;  // of the first and last 64 KiB (the ELF header, build ID, section table)

  /// "dev 2049 ino 1234 size 1178552 mtime ... ctime ... hash 0123456789abcdef"
  [[nodiscard]] std::string key() const;
};

/// A plugin file that passed the checks that need no loading.
struct CheckedFile {
  std::filesystem::path file;      // as given: what messages and --list show
  std::filesystem::path resolved;  // absolute, no symlink left: what the child checks and dlopen loads
  FileIdentity identity;
};

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

/// The checks that need no loading: resolved and safe to load (secure_path.hpp), then opened once by the resolved
/// path: a regular file, an ELF object, its identity. The reason otherwise, as for open_plugin.
Expected<CheckedFile> check_plugin_file(const std::filesystem::path& file, bool allow_insecure);

/// Opens the checked file by its resolved path (refused if it is no longer the file checked), calls its entry
/// symbol and checks the version it answers with against kHostAbiMin..Max. On failure the message is the reason
/// only (the caller names the file); the code is ExitCode::no_plugin. Its static constructors run inside a
/// CallGuard with `recovery` (call_guard.hpp).
Expected<OpenedPlugin> open_plugin(const CheckedFile& file, const detail::LoadRecovery& recovery = {});

/// check_plugin_file, then open_plugin.
Expected<OpenedPlugin> open_plugin(const std::filesystem::path& file, bool allow_insecure);

}  // namespace dgx
