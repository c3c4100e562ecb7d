#include "dgx/core/plugin/secure_path.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <deque>
#include <set>

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

std::string describe(const fs::path& path, const struct stat& st, bool first, const fs::path& link) {
  if (first && S_ISLNK(st.st_mode)) {
    return "the symlink " + path.string();
  }
  if (first && !S_ISDIR(st.st_mode)) {
    return "the file " + path.string();
  }
  if (first && !link.empty()) {
    return "its folder " + path.string() + " (which holds the symlink " + link.string() + ")";
  }
  return "its folder " + path.string();
}

std::string owner_problem(const std::string& what, const struct stat& st) {
  return what + " is owned by uid " + std::to_string(st.st_uid) + " (expected root or uid " +
         std::to_string(::geteuid()) + ", who runs dgxhost): refused; pass --allow-insecure-plugins to load it anyway";
}

// The first insecure entry from `start` up to the root, or empty. `start` must be resolved (no symlinks left);
// `link` names the symlink `start` holds, when that is why it is checked.
std::string check_chain(const fs::path& start, const fs::path& link = {}) {
  bool first = true;
  for (fs::path p = start;; p = p.parent_path()) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) {
      return "cannot check " + p.string() + ": " + os_reason(errno);
    }
    if (!trusted_owner(st.st_uid)) {
      return owner_problem(describe(p, st, first, link), st);
    }
    const bool others_write = (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
    const bool sticky_folder = S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX) != 0;  // /tmp: entries stay their owner's
    if (others_write && !sticky_folder) {
      return describe(p, st, first, link) + " is writable by group or others (mode " + octal_mode(st.st_mode) +
             "; expected no group/other write permission): refused; fix with 'chmod go-w " + p.string() +
             "' or pass --allow-insecure-plugins";
    }
    first = false;
    if (p == p.root_path() || p.parent_path() == p) {
      return {};
    }
  }
}

// A symlink met while resolving: it must be ours or root's (in a sticky folder, others may add links of their
// own), and so must the chain of the folder that holds it.
std::string check_link(const fs::path& link, const fs::path& folder, std::set<fs::path>& checked) {
  struct stat st {};
  if (::lstat(link.c_str(), &st) != 0) {
    return "cannot check " + link.string() + ": " + os_reason(errno);
  }
  if (!trusted_owner(st.st_uid)) {
    return owner_problem("the symlink " + link.string(), st);
  }
  if (!checked.insert(folder).second) {
    return {};
  }
  return check_chain(folder, link);
}

std::deque<fs::path> components(const fs::path& path) {
  std::deque<fs::path> out;
  for (const fs::path& part : path.relative_path()) {
    out.push_back(part);
  }
  return out;
}

}  // namespace

ResolvedPath resolve_plugin_path(const fs::path& file, bool check) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(file, ec);
  if (ec) {
    return {{}, "cannot resolve " + file.string() + ": " + ec.message()};
  }
  // As realpath(3) does, one component at a time, so that every symlink on the way is seen where it is.
  fs::path done = absolute.root_path();
  std::deque<fs::path> todo = components(absolute);
  std::set<fs::path> checked;
  int links = 0;
  while (!todo.empty()) {
    const fs::path part = todo.front();
    todo.pop_front();
    if (part == "." || part.empty()) {
      continue;
    }
    if (part == "..") {
      done = done.parent_path();
      continue;
    }
    const fs::path next = done / part;
    struct stat st {};
    if (::lstat(next.c_str(), &st) != 0) {
      return {{}, "cannot resolve " + file.string() + ": " + next.string() + ": " + os_reason(errno)};
    }
    if (!S_ISLNK(st.st_mode)) {
      done = next;
      continue;
    }
    if (++links > 40) {  // SYMLOOP_MAX on Linux
      return {{}, "cannot resolve " + file.string() + ": " + os_reason(ELOOP)};
    }
    if (check) {
      if (std::string problem = check_link(next, done, checked); !problem.empty()) {
        return {{}, problem};
      }
    }
    const fs::path target = fs::read_symlink(next, ec);
    if (ec) {
      return {{}, "cannot resolve " + file.string() + ": " + next.string() + ": " + ec.message()};
    }
    std::deque<fs::path> rest = components(target);
    rest.insert(rest.end(), todo.begin(), todo.end());
    todo = std::move(rest);
    if (target.is_absolute()) {
      done = target.root_path();
    }
  }
  if (check) {
    if (std::string problem = check_chain(done); !problem.empty()) {
      return {{}, problem};
    }
  }
  return {done, {}};
}

std::string insecure_permissions(const fs::path& file) { return resolve_plugin_path(file).problem; }

}  // namespace dgx
