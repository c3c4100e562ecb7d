// Whether a plugin file is safe to load: a library runs with the host's privileges, so nobody but root and the
// user running dgxhost may have been able to write it, or to swap it, or any folder it hangs from. The rule is
// ld.so's and sudo's for secure paths, applied to the resolved file and its whole chain of folders (and to the
// folders holding the link, when the path is a symlink): every entry owned by root or by this user, none
// writable by group or others, except a sticky folder such as /tmp, where others cannot replace our entry.
#pragma once

#include <filesystem>
#include <string>

namespace dgx {

/// Why `file` must not be loaded (one line, with the fix), or empty when it is safe.
std::string insecure_permissions(const std::filesystem::path& file);

}  // namespace dgx
