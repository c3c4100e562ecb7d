// Small POSIX file helpers the host shares: the OS's reason for a failure, what kind of file a path is, and
// reading a file that must be a small regular file (config files, journals): never blocking on a FIFO, never
// growing without bound on /dev/zero, never reading a directory as an empty file.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>

#include "dgx/catalog/small_file.hpp"
#include "dgx/core/support/expected.hpp"

namespace dgx {

/// strerror(errnum), thread-safe; "a directory", "a FIFO", ... for a non-regular st_mode (libs/catalog's, which
/// reads every small file the host reads).
using catalog::file_kind;
using catalog::os_reason;

/// Owns a file descriptor; closes it once.
class UniqueFd {
public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd();

  [[nodiscard]] int get() const { return fd_; }
  [[nodiscard]] explicit operator bool() const { return fd_ >= 0; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

private:
  int fd_ = -1;
};

/// Reads `path`, which must be a regular file of at most `max_bytes`. `what` names it in errors ("config file").
/// Opens without blocking (O_NONBLOCK), so a FIFO is refused instead of waited on. A usage failure naming the
/// path and the reason otherwise.
Expected<std::string> read_regular_file(const std::string& path, std::size_t max_bytes, const std::string& what);

/// Opens /dev/null on whichever of stdin, stdout and stderr the process was started without, so that no file it
/// opens later (a journal, a results file) becomes fd 1 and receives what is printed.
void keep_standard_fds_open();

/// Writes all of `text` to `fd`, retrying short writes and EINTR; 0 or the errno.
int write_all(int fd, const char* data, std::size_t size);

}  // namespace dgx
