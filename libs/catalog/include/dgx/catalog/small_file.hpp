// Reading a file that must be a small regular file (a catalog entry, a config file, a model's config.json): never
// blocking on a FIFO, never growing without bound on /dev/zero, never reading a directory as an empty file. The
// host's readers go through it too (core/support/files.hpp).
#pragma once

#include "dgx/catalog/expected.hpp"

#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <string>

namespace dgx::catalog {

/// strerror(errnum), thread-safe.
[[nodiscard]] std::string os_reason(int errnum);

/// "a directory", "a FIFO", "a character device", ... for a non-regular st_mode; "a regular file" otherwise.
[[nodiscard]] const char* file_kind(mode_t mode);

/// The text of `path`, which must be a regular file of at most `max_bytes`. It is opened without blocking
/// (O_NONBLOCK), so a FIFO is refused instead of waited on. The error says why ("is a FIFO, not a regular file",
/// "No such file or directory", "is 9000000 bytes; at most 4194304 are read"), without the path.
[[nodiscard]] Expected<std::string> read_small_file(const std::filesystem::path& path, std::size_t max_bytes);

}  // namespace dgx::catalog
