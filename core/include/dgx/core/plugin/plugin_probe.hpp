// Checking a new plugin file in a child process before the host loads it: a library runs code when it is opened
// (static constructors) and when it is initialised, and a broken one may crash, abort, hang or end the process
// there. The child takes that fall; the host reports the file in one line and skips it. A file that loaded
// cleanly is remembered by its identity (device, inode, size, modification time) and this dgxhost build, so the
// check costs a fork only the first time a file is seen.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

namespace dgx {

struct LoadOptions;

struct ProbeVerdict {
  std::optional<std::string> rejection;  // why the file must not be loaded; nullopt when the child loaded it
  bool from_cache = false;               // the file was known good; no child was started
};

/// How long the child may take to open and initialise a plugin before it is killed and the file refused.
inline constexpr std::chrono::seconds kProbeTimeout{120};

/// Loads and initialises `file` in a child process (with `options`, minus the probe) and says whether it is safe
/// to load in this one. When no child can be started the verdict is "load it" (the check is a safety net).
ProbeVerdict probe_plugin(const std::filesystem::path& file, const LoadOptions& options);

/// Where known-good verdicts are kept: $DGX_CACHE_DIR, else $XDG_CACHE_HOME/dgxhost, else ~/.cache/dgxhost;
/// empty when none of these is set. DGX_CACHE_DIR=off disables the cache.
std::filesystem::path probe_cache_dir();

}  // namespace dgx
