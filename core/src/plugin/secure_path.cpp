#include "dgx/core/plugin/secure_path.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "dgx/core/support/files.hpp"

namespace dgx {

namespace {

namespace fs = std::filesystem;

std::string octal_mode(mode_t mode) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "%04o", static_cast<unsigned>(mode & 07777));
  return buffer;
}

bool trusted_owner(uid_t uid) { return uid == 0 || uid == ::geteuid() || uid == ::getuid(); }

std::string what(const fs::path& path, const struct stat& st, bool first) {
  if (first && !S_ISDIR(st.st_mode)) {
    return "the file " + path.string();
  }
  return "its folder " + path.string();
}

// The first insecure entry from `start` up to the root, or empty. `start` must be canonical (no symlinks left).
std::string check_chain(const fs::path& start) {
  bool first = true;
  for (fs::path p = start;; p = p.parent_path()) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) {
      return "cannot check " + p.string() + ": " + os_reason(errno);
    }
    if (!trusted_owner(st.st_uid)) {
      return what(p, st, first) + " is owned by uid " + std::to_string(st.st_uid) + " (expected root or uid " +
             std::to_string(::geteuid()) +
             ", who runs dgxhost): refused; pass --allow-insecure-plugins to load it anyway";
    }
    const bool others_write = (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
    const bool sticky_folder = S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX) != 0;  // /tmp: entries stay their owner's
    if (others_write && !sticky_folder) {
      return what(p, st, first) + " is writable by group or others (mode " + octal_mode(st.st_mode) +
             "; expected no group/other write permission): refused; fix with 'chmod go-w " + p.string() +
             "' or pass --allow-insecure-plugins";
    }
    first = false;
    if (p == p.root_path() || p.parent_path() == p) {
      return {};
    }
  }
}

}  // namespace

std::string insecure_permissions(const fs::path& file) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(file, ec);
  const fs::path resolved = fs::canonical(absolute, ec);
  if (ec) {
    return "cannot resolve " + file.string() + ": " + ec.message();
  }
  if (std::string problem = check_chain(resolved); !problem.empty()) {
    return problem;
  }
  // A symlink can be swapped by whoever can write the folders that hold it, wherever it points.
  const fs::path link_folder = fs::canonical(absolute.parent_path(), ec);
  if (!ec && link_folder != resolved.parent_path()) {
    return check_chain(link_folder);
  }
  return {};
}

}  // namespace dgx
