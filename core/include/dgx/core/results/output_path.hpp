// Writing result files without ever writing where we must not. A results file is checked before any work (so a
// typo in -o fails in a second, not after an hours-long run) and written through a fresh temporary in the
// target's own folder, created anew (O_CREAT | O_EXCL | O_NOFOLLOW), then renamed over it: a reader never sees half a
// file, a pre-existing symlink at a guessable temporary name is never followed, and a device node, FIFO,
// directory or symlink at the target is refused instead of being replaced by a regular file (as root,
// `-o /dev/null` would otherwise replace the real one). Every failure names the path and the OS reason. The files a
// workload writes for the user (--emit DIR, dgx_host_api::write_output_file) go the same way into their folder.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "dgx/core/results/format.hpp"
#include "dgx/core/support/expected.hpp"

namespace dgx {

/// "-": the results file is stdout itself.
inline constexpr std::string_view kStdoutPath = "-";

/// The format a results file gets: its extension's (kFormatExtensions), or `fallback` (the --format of
/// stdout) when it has none or is stdout. A usage failure for an extension no reporter writes (e.g. .pdf).
Expected<Format> output_format(const std::string& path, Format fallback);

/// Checks, before any work, that `path` can receive results: stdout always can; otherwise its folder exists
/// and is writable (probed with a real temporary file, so a full disk or a read-only mount shows now), and the
/// target is absent or a regular file. A usage failure (exit code 2) naming the path and the reason otherwise.
std::optional<Failure> check_output_path(const std::string& path);

/// Writes `content` to `path` atomically (temporary + fsync + rename; the temporary is removed on failure).
/// Refuses a target that exists and is not a regular file. nullopt on success, else the reason.
std::optional<std::string> write_file_atomically(const std::string& path, std::string_view content);

/// Whether `folder` can take the files a workload writes for the user (--emit DIR), before any work: it is a
/// folder, or absent with a folder to create it in. A usage failure naming it otherwise.
std::optional<Failure> check_emit_folder(const std::string& folder);

/// Writes `content` as file `name` of `folder` (created when absent) with permission bits `mode` (the umask
/// applies), as dgx_host_api::write_output_file promises: `name` is a plain file name (text::file_name_problem); an
/// entry already there must be a regular file with no other hard link (a symbolic link, a FIFO, a device, a
/// directory or a hard link to a file elsewhere is refused, inspected with lstat and never opened, so a FIFO cannot
/// block the run); the content goes to a temporary created anew in the folder (O_CREAT | O_EXCL | O_NOFOLLOW),
/// synced, and renamed over `name`. nullopt on success, else the reason.
std::optional<std::string> write_file_in_folder(const std::string& folder, const std::string& name,
                                                std::string_view content, unsigned mode);

}  // namespace dgx
