#include "dgx/core/results/output_path.hpp"

#include "dgx/core/support/files.hpp"
#include "dgx/core/support/text.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
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

// The permission bits a new file of `requested` bits gets: the umask applies, as it would to open(O_CREAT,
// requested). Read from /proc because umask() can only be read by changing it, which is not thread-safe.
mode_t new_file_mode(mode_t requested = 0666) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Umask:", 0) == 0) {
      return requested & ~static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
    }
  }
  return requested & 0755;
}

// A folder's descriptor, closed on scope exit: the temporary and its rename go through it, so both name entries of
// the same folder whatever happens to its path meanwhile.
class FolderHandle {
public:
  explicit FolderHandle(const std::string& folder) : fd_(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
    error_ = fd_ < 0 ? errno : 0;
  }
  FolderHandle(const FolderHandle&) = delete;
  FolderHandle& operator=(const FolderHandle&) = delete;
  ~FolderHandle() {
    if (fd_ >= 0) {
      ::close(fd_);
    }
  }
  [[nodiscard]] int fd() const { return fd_; }
  [[nodiscard]] int error() const { return error_; }

private:
  int fd_;
  int error_;
};

// A temporary file created anew in a folder, ".<name>.<8 random characters>", with O_CREAT | O_EXCL | O_NOFOLLOW
// and mode 0600: never an existing file, never through a link at a guessed name. Removed unless kept.
class TemporaryFile {
public:
  TemporaryFile(int folder, const std::string& name) : folder_(folder) {
    static constexpr std::string_view kChars = "abcdefghijklmnopqrstuvwxyz0123456789";
    std::uint64_t state = static_cast<std::uint64_t>(::getpid()) * 0x9e3779b97f4a7c15ULL ^
                          static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(this)) ^
                          static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    for (int attempt = 0; attempt < 100 && fd_ < 0; ++attempt) {
      name_ = "." + name + ".";
      for (int i = 0; i < 8; ++i) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        name_ += kChars[(state >> 33) % kChars.size()];
      }
      fd_ = ::openat(folder, name_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
      error_ = fd_ < 0 ? errno : 0;
      if (fd_ < 0 && error_ != EEXIST) {
        break;
      }
    }
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile() {
    if (fd_ >= 0) {
      ::close(fd_);
    }
    if (error_ == 0 && !kept_) {
      ::unlinkat(folder_, name_.c_str(), 0);  // only what this object created
    }
  }

  [[nodiscard]] int error() const { return error_; }  // errno of the creation; 0 when the file was created
  [[nodiscard]] int fd() const { return fd_; }
  [[nodiscard]] const std::string& name() const { return name_; }

  // Closes the descriptor, reporting what close() says (a delayed write error on NFS shows here).
  int close() {
    const int rc = ::close(fd_);
    fd_ = -1;
    return rc == 0 ? 0 : errno;
  }
  void keep() { kept_ = true; }

private:
  int folder_;
  std::string name_;
  int fd_ = -1;
  int error_ = 0;
  bool kept_ = false;
};

// Writes `content` to a fresh temporary of `folder` (`folder_text` names it in messages), with permission bits
// `mode`, syncs it and renames it over entry `name`: a reader never sees half a file, and the rename replaces the
// entry itself, so even a link planted there since the caller checked it is replaced, not written through.
std::optional<std::string> replace_entry(const FolderHandle& folder, const std::string& folder_text,
                                         const std::string& name, std::string_view content, mode_t mode) {
  TemporaryFile temporary(folder.fd(), name);
  if (temporary.error() != 0) {
    return "cannot create a temporary file in " + folder_text + ": " + os_reason(temporary.error());
  }
  const std::string temporary_path = folder_text + "/" + temporary.name();
  if (const int error = write_all(temporary.fd(), content.data(), content.size()); error != 0) {
    return "cannot write " + temporary_path + ": " + os_reason(error);
  }
  ::fchmod(temporary.fd(), mode);
  if (::fsync(temporary.fd()) != 0) {
    return "cannot write " + temporary_path + ": " + os_reason(errno);
  }
  if (const int error = temporary.close(); error != 0) {
    return "cannot write " + temporary_path + ": " + os_reason(error);
  }
  if (::renameat(folder.fd(), temporary.name().c_str(), folder.fd(), name.c_str()) != 0) {
    return "cannot rename " + temporary_path + " to " + folder_text + "/" + name + ": " + os_reason(errno);
  }
  temporary.keep();
  ::fsync(folder.fd());  // best effort: a rename is durable once the folder's entry is on disk
  return std::nullopt;
}

// Why the entry `name` of the folder must not be replaced, or empty: absent, or a regular file of one link.
// fstatat without following: a link is judged itself, and nothing is opened (a FIFO would block an open).
std::string refused_entry(const FolderHandle& folder, const std::string& path, const std::string& name) {
  struct stat st {};
  if (::fstatat(folder.fd(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return errno == ENOENT ? std::string() : "cannot inspect " + path + ": " + os_reason(errno);
  }
  if (!S_ISREG(st.st_mode)) {
    return path + " is " + file_kind(st.st_mode) + ": dgxhost replaces only a regular file there";
  }
  if (st.st_nlink > 1) {
    return path + " has " + std::to_string(st.st_nlink) +
           " hard links: it may be a file elsewhere, which dgxhost does not write through";
  }
  return {};
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
  const FolderHandle dir(folder);
  TemporaryFile probe(dir.fd(), fs::path(path).filename().string());
  if (dir.fd() < 0 || probe.error() != 0) {
    return usage_failure("--output " + path + ": cannot create a file in " + folder + ": " +
                         os_reason(dir.fd() < 0 ? dir.error() : probe.error()));
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
  const std::string folder = folder_of(path);
  const FolderHandle dir(folder);
  if (dir.fd() < 0) {
    return "cannot open the folder " + folder + ": " + os_reason(dir.error());
  }
  return replace_entry(dir, folder, fs::path(path).filename().string(), content, new_file_mode());
}

std::optional<Failure> check_emit_folder(const std::string& folder) {
  if (folder.empty()) {
    return std::nullopt;
  }
  struct stat st {};
  if (::stat(folder.c_str(), &st) == 0) {
    return S_ISDIR(st.st_mode) ? std::nullopt
                               : std::optional(usage_failure("--emit " + folder + ": it is " + file_kind(st.st_mode) +
                                                             ", not a folder"));
  }
  const int error = errno;
  std::string trimmed = folder;
  while (trimmed.size() > 1 && trimmed.back() == '/') {
    trimmed.pop_back();
  }
  const std::string parent = folder_of(trimmed);
  errno = error;
  if (errno != ENOENT || ::stat(parent.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return usage_failure("--emit " + folder + ": " + os_reason(errno) + " (the folder is created in an existing one)");
  }
  return std::nullopt;
}

std::optional<std::string> write_file_in_folder(const std::string& folder, const std::string& name,
                                                std::string_view content, unsigned mode) {
  if (const std::string problem = text::file_name_problem(name); !problem.empty()) {
    return problem;
  }
  std::error_code ec;
  fs::create_directory(folder, ec);  // the user named it; one level, as mkdir does
  const FolderHandle dir(folder);
  if (dir.fd() < 0) {
    return "cannot open the folder " + folder + ": " + os_reason(dir.error());
  }
  if (std::string problem = refused_entry(dir, folder + "/" + name, name); !problem.empty()) {
    return problem;
  }
  return replace_entry(dir, folder, name, content, new_file_mode(static_cast<mode_t>(mode & 0777)));
}

}  // namespace dgx
