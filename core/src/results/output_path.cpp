#include "dgx/core/results/output_path.hpp"

#include "dgx/core/support/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace dgx {

namespace {

namespace fs = std::filesystem;

std::string folder_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

// Why `path` must not be replaced, or empty: it is absent or a regular file. lstat, so a symlink is itself refused.
std::string non_regular_target(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) {
    return {};
  }
  return path + " is " + file_kind(st.st_mode) +
         ": dgxhost writes results only to regular files (it would replace it); use -o - for stdout";
}

// The permission bits a new file gets: the umask applies, as it would to open(O_CREAT, 0666). Read from /proc
// because umask() can only be read by changing it, which is not thread-safe.
mode_t new_file_mode() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Umask:", 0) == 0) {
      return 0666 & ~static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
    }
  }
  return 0644;
}

// A file descriptor that closes itself, and a temporary file that removes itself unless kept.
class TemporaryFile {
public:
  explicit TemporaryFile(const std::string& target)
      : path_(folder_of(target) + "/." + fs::path(target).filename().string() + ".XXXXXX") {
    fd_ = ::mkstemp(path_.data());  // O_CREAT | O_EXCL, mode 0600: never an existing file or link
    if (fd_ < 0) {
      error_ = errno;
    }
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile() {
    if (fd_ >= 0) {
      ::close(fd_);
    }
    if (!kept_ && error_ == 0) {
      ::unlink(path_.c_str());  // only what mkstemp created
    }
  }

  [[nodiscard]] int error() const { return error_; }
  [[nodiscard]] int fd() const { return fd_; }
  [[nodiscard]] const std::string& path() const { return path_; }

  // Closes the descriptor, reporting what close() says (a delayed write error on NFS shows here).
  int close() {
    const int rc = ::close(fd_);
    fd_ = -1;
    return rc == 0 ? 0 : errno;
  }
  void keep() { kept_ = true; }

private:
  std::string path_;
  int fd_ = -1;
  int error_ = 0;  // errno of mkstemp; 0 when the file was created
  bool kept_ = false;
};

// Best effort: a rename is durable once the folder's entry is on disk.
void sync_folder(const std::string& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return;
  }
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

Expected<Format> output_format(const std::string& path, Format fallback) {
  if (path == kStdoutPath) {
    return fallback;
  }
  const std::string extension = fs::path(path).extension().string();
  if (extension.empty()) {
    return fallback;
  }
  if (auto format = format_from_path(path)) {
    return *format;
  }
  return usage_failure("--output " + path + ": unknown extension '" + extension + "' (expected one of " +
                       std::string(kFormatExtensions) + "; a name without an extension takes --format)");
}

std::optional<Failure> check_output_path(const std::string& path) {
  if (path == kStdoutPath) {
    return std::nullopt;
  }
  if (path.empty()) {
    return usage_failure("--output needs a file name (or - for stdout)");
  }
  const std::string folder = folder_of(path);
  struct stat st {};
  if (::stat(folder.c_str(), &st) != 0) {
    return usage_failure("--output " + path + ": folder " + folder + ": " + os_reason(errno));
  }
  if (!S_ISDIR(st.st_mode)) {
    return usage_failure("--output " + path + ": " + folder + " is not a folder");
  }
  if (std::string problem = non_regular_target(path); !problem.empty()) {
    return usage_failure("--output " + problem);
  }
  TemporaryFile probe(path);
  if (probe.error() != 0) {
    return usage_failure("--output " + path + ": cannot create a file in " + folder + ": " + os_reason(probe.error()));
  }
  if (const int error = write_all(probe.fd(), "\n", 1); error != 0) {
    return usage_failure("--output " + path + ": cannot write in " + folder + ": " + os_reason(error));
  }
  return std::nullopt;
}

std::optional<std::string> write_file_atomically(const std::string& path, std::string_view content) {
  if (std::string problem = non_regular_target(path); !problem.empty()) {
    return problem;
  }
  TemporaryFile temporary(path);
  if (temporary.error() != 0) {
    return "cannot create a temporary file in " + folder_of(path) + ": " + os_reason(temporary.error());
  }
  if (const int error = write_all(temporary.fd(), content.data(), content.size()); error != 0) {
    return "cannot write " + temporary.path() + ": " + os_reason(error);
  }
  ::fchmod(temporary.fd(), new_file_mode());
  if (::fsync(temporary.fd()) != 0) {
    return "cannot write " + temporary.path() + ": " + os_reason(errno);
  }
  if (const int error = temporary.close(); error != 0) {
    return "cannot write " + temporary.path() + ": " + os_reason(error);
  }
  if (::rename(temporary.path().c_str(), path.c_str()) != 0) {
    return "cannot rename " + temporary.path() + " to " + path + ": " + os_reason(errno);
  }
  temporary.keep();
  sync_folder(folder_of(path));
  return std::nullopt;
}

}  // namespace dgx
