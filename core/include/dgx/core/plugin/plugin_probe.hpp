// Checking a new plugin file in a child process before the host loads it: a library runs code when it is opened
// (static constructors) and when it is initialised, and a broken one may crash, abort, hang or end the process
// there. The child takes that fall; the host reports the file in one line and skips it. The child's verdict is
// remembered by the file's identity (device, inode, size, modification and change times, a hash of its ends:
// plugin_open.hpp), the time limit and this dgxhost build, so the check costs a fork only the first time a file
// is seen: a file that loaded cleanly is loaded without one, and one that crashed, hung or ended the process is
// refused without one (a hang would otherwise cost the time limit on every command). A refusal the child reports
// in words (init failed, a wrong ABI) is cheap to find again and may be transient: it is not remembered.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include "dgx/core/plugin/crash_report.hpp"

namespace dgx {

struct LoadOptions;
struct CheckedFile;

struct ProbeVerdict {
  std::optional<std::string> rejection;  // why the file must not be loaded; nullopt when the child loaded it
  bool from_cache = false;               // the verdict was remembered; no child was started
  /// For a file that passed: what to remember should it fail when this process loads it (crash_report.hpp).
  detail::LoadRecovery recovery;
};

inline constexpr std::chrono::seconds kProbeTimeout{120};

/// How long the child may take to open and initialise a plugin before it is killed and the file refused: 120 s,
/// or $DGX_PROBE_TIMEOUT_S (1..3600).
std::chrono::seconds probe_timeout();

/// Loads and initialises `file` in a child process (with `options`, minus the probe) and says whether it is safe
/// to load in this one. When no child can be started the verdict is "load it" (the check is a safety net).
ProbeVerdict probe_plugin(const CheckedFile& file, const LoadOptions& options);

/// Where verdicts are kept: $DGX_CACHE_DIR, else $XDG_CACHE_HOME/dgxhost, else ~/.cache/dgxhost; empty when none
/// of these is set. DGX_CACHE_DIR=off disables the cache.
std::filesystem::path probe_cache_dir();

}  // namespace dgx
