#include "dgx/core/support/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace dgx {

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

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) {
      ::close(fd_);
    }
    fd_ = other.release();
  }
  return *this;
}

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) {
    ::close(fd_);
  }
}

Expected<std::string> read_regular_file(const std::string& path, std::size_t max_bytes, const std::string& what) {
  auto failure = [&](const std::string& reason) { return Failure{ExitCode::usage, what + " " + path + ": " + reason}; };
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!fd) {
    return failure(os_reason(errno));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    return failure(os_reason(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    return failure(std::string("is ") + file_kind(st.st_mode) + ", not a regular file");
  }
  if (static_cast<std::size_t>(st.st_size) > max_bytes) {
    return failure("is " + std::to_string(st.st_size) + " bytes; dgxhost reads at most " + std::to_string(max_bytes) +
                   " bytes");
  }
  std::string content;
  char buffer[65536];
  for (;;) {  // the size may change while we read: the limit holds for what is read, not for what stat said
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      return failure(os_reason(errno));
    }
    if (n == 0) {
      break;
    }
    content.append(buffer, static_cast<std::size_t>(n));
    if (content.size() > max_bytes) {
      return failure("grew beyond " + std::to_string(max_bytes) + " bytes while read");
    }
  }
  return content;
}

void keep_standard_fds_open() {
  for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd) {
    if (::fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
      const int opened = ::open("/dev/null", O_RDWR);  // the lowest free descriptor: this one
      if (opened >= 0 && opened != fd) {
        ::dup2(opened, fd);
        ::close(opened);
      }
    }
  }
}

int write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return errno;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return 0;
}

}  // namespace dgx
