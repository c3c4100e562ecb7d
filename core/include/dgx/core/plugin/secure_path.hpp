// Whether a plugin file is safe to load: a library runs with the host's privileges, so nobody but root and the
// user running dgxhost may have been able to write it, or to swap it, or any folder it hangs from. The rule is
// ld.so's and sudo's for secure paths, applied to the resolved file and its whole chain of folders, and to every
// symlink met on the way there (a --plugin-dir that is a link to a folder, a link to the file, links to links):
// the link itself and the chain of the folder holding it, since whoever can change that folder chooses where
// the link leads. Every entry owned by root or by this user, none writable by group or others, except a sticky
// folder such as /tmp, where others cannot replace our entry.
#pragma once

#include <filesystem>
#include <string>

namespace dgx {

/// Where a path leads, and why it must not be loaded (one line, with the fix), or empty when it is safe.
struct ResolvedPath {
  std::filesystem::path resolved;  // absolute, no symlink left; empty when the path cannot be resolved
  std::string problem;
};

/// Resolves `file` one component at a time, checking every symlink on the way and then the resolved file.
/// With `check` false it only resolves (--allow-insecure-plugins).
ResolvedPath resolve_plugin_path(const std::filesystem::path& file, bool check = true);

/// resolve_plugin_path(file).problem.
std::string insecure_permissions(const std::filesystem::path& file);

}  // namespace dgx
