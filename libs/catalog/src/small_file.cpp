#include "dgx/catalog/small_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace dgx::catalog {

std::string os_reason(int errnum) {
  char buffer[256] = {};
  return ::strerror_r(errnum, buffer, sizeof buffer);  // GNU: returns the message, not always in `buffer`
}

const char* file_kind(mode_t mode) {
  if (S_ISREG(mode)) {
    return "a regular file";
  }
  if (S_ISDIR(mode)) {
    return "a directory";
  }
  if (S_ISLNK(mode)) {
    return "a symbolic link";
  }
  if (S_ISCHR(mode)) {
    return "a character device";
  }
  if (S_ISBLK(mode)) {
    return "a block device";
  }
  if (S_ISFIFO(mode)) {
    return "a FIFO";
  }
  if (S_ISSOCK(mode)) {
    return "a socket";
  }
  return "not a regular file";
}

namespace {

/// Closes a descriptor on every path out.
struct Descriptor {
  explicit Descriptor(int descriptor) : fd(descriptor) {}
  int fd;
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd >= 0) {
      ::close(fd);
    }
  }
};

}  // namespace

Expected<std::string> read_small_file(const std::filesystem::path& path, std::size_t max_bytes) {
  const Descriptor file(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (file.fd < 0) {
    return Error{os_reason(errno)};
  }
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) {
    return Error{os_reason(errno)};
  }
  if (!S_ISREG(st.st_mode)) {
    return Error{std::string("is ") + file_kind(st.st_mode) + ", not a regular file"};
  }
  if (static_cast<std::size_t>(st.st_size) > max_bytes) {
    return Error{"is " + std::to_string(st.st_size) + " bytes; dgxhost reads at most " + std::to_string(max_bytes) +
                 " bytes"};
  }
  std::string content;
  // Its size up front: growing by doubling would hold the old and the new buffer at once (2x a large log).
  content.reserve(static_cast<std::size_t>(st.st_size));
  char buffer[65536];
  for (;;) {  // the size may change while we read: the limit holds for what is read, not for what stat said
    const ssize_t n = ::read(file.fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      return Error{os_reason(errno)};
    }
    if (n == 0) {
      break;
    }
    content.append(buffer, static_cast<std::size_t>(n));
    if (content.size() > max_bytes) {
      return Error{"grew beyond " + std::to_string(max_bytes) + " bytes while read"};
    }
  }
  return content;
}

}  // namespace dgx::catalog
