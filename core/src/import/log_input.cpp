#include "log_input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "dgx/catalog/small_file.hpp"

namespace dgx::detail {

namespace {

constexpr std::size_t kBlockBytes = std::size_t{1} << 20;  // one read; a longer line grows the window

}  // namespace

Expected<LogInput> LogInput::open(const std::string& path, std::size_t max_bytes, const std::string& what) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  auto refuse = [&](const std::string& why) {
    if (fd >= 0) {
      ::close(fd);
    }
    return Failure{ExitCode::usage, what + " " + path + ": " + why};
  };
  if (fd < 0) {
    return refuse(catalog::os_reason(errno));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    return refuse(catalog::os_reason(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    return refuse(std::string("is ") + catalog::file_kind(st.st_mode) + ", not a regular file");
  }
  if (static_cast<std::size_t>(st.st_size) > max_bytes) {
    return refuse("is " + std::to_string(st.st_size) + " bytes; dgxhost reads at most " + std::to_string(max_bytes) +
                  " bytes");
  }
  return LogInput(fd, static_cast<std::size_t>(st.st_size));
}

LogInput::LogInput(std::string text) : buffer_(std::move(text)), end_(buffer_.size()) {}

LogInput::LogInput(int fd, std::size_t size) : fd_(fd), size_(size), buffer_(std::min(size, kBlockBytes), '\0') {}

LogInput::LogInput(LogInput&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), size_(other.size_), consumed_(other.consumed_),
      buffer_(std::move(other.buffer_)), begin_(other.begin_), end_(other.end_), error_(std::move(other.error_)) {}

LogInput& LogInput::operator=(LogInput&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) {
      ::close(fd_);
    }
    fd_ = std::exchange(other.fd_, -1);
    size_ = other.size_;
    consumed_ = other.consumed_;
    buffer_ = std::move(other.buffer_);
    begin_ = other.begin_;
    end_ = other.end_;
    error_ = std::move(other.error_);
  }
  return *this;
}

LogInput::~LogInput() {
  if (fd_ >= 0) {
    ::close(fd_);
  }
}

void LogInput::rewind() {
  begin_ = 0;
  error_.clear();
  if (fd_ < 0) {
    return;
  }
  end_ = 0;
  consumed_ = 0;
  if (::lseek(fd_, 0, SEEK_SET) != 0) {
    error_ = catalog::os_reason(errno);
    consumed_ = size_;  // nothing more is read
  }
}

bool LogInput::fill() {
  if (fd_ < 0 || consumed_ >= size_) {
    return false;
  }
  if (begin_ > 0) {  // what is left of the window moves to its front
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buffer_.size()) {  // one line fills the window: a larger one
    buffer_.resize(std::min(2 * buffer_.size(), size_));
  }
  const std::size_t want = std::min(buffer_.size() - end_, size_ - consumed_);
  for (;;) {
    const ssize_t n = ::read(fd_, buffer_.data() + end_, want);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      error_ = catalog::os_reason(errno);
      return false;
    }
    if (n == 0) {
      error_ =
          "shrank while it was read (from " + std::to_string(size_) + " to " + std::to_string(consumed_) + " bytes)";
      return false;
    }
    end_ += static_cast<std::size_t>(n);
    consumed_ += static_cast<std::size_t>(n);
    return true;
  }
}

bool LogInput::next(std::string_view& line, bool& line_break) {
  std::size_t scanned = begin_;  // where the search for the line break goes on after a read
  for (;;) {
    const void* found = std::memchr(buffer_.data() + scanned, '\n', end_ - scanned);
    if (found != nullptr) {
      const auto at = static_cast<std::size_t>(static_cast<const char*>(found) - buffer_.data());
      line = std::string_view(buffer_.data() + begin_, at - begin_);
      line_break = true;
      begin_ = at + 1;
      return true;
    }
    const std::size_t offset = end_ - begin_;  // fill() moves the window's front to 0
    if (!fill()) {
      break;
    }
    scanned = offset;
  }
  if (!error_.empty() || begin_ == end_) {
    return false;
  }
  line = std::string_view(buffer_.data() + begin_, end_ - begin_);  // the last line, without a line break
  line_break = false;
  begin_ = end_;
  return true;
}

}  // namespace dgx::detail
