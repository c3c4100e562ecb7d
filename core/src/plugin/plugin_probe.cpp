#include "dgx/core/plugin/plugin_probe.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "dgx/core/plugin/call_guard.hpp"
#include "dgx/core/plugin/cancellation.hpp"
#include "dgx/core/plugin/plugin_loader.hpp"
#include "dgx/core/support/build_info.hpp"
#include "dgx/core/support/files.hpp"

namespace dgx {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kOk = "ok\n";
constexpr std::string_view kRejected = "rejected\n";
constexpr std::string_view kCachedOk = "ok";
constexpr std::string_view kCachedRejected = "rejected ";

// The cache ---------------------------------------------------------------------------------------------------

// One line that changes whenever the file, the time limit or the host that judged it changes.
std::string cache_key(const CheckedFile& file) {
  return file.identity.key() + " timeout " + std::to_string(probe_timeout().count()) + " host " +
         build_info::version() + "/" + build_info::git_revision() + " file " + file.resolved.string();
}

fs::path cache_entry(const fs::path& dir, const std::string& key) {
  std::uint64_t hash = 1469598103934665603ULL;  // FNV-1a: a file name, not a secret; the entry holds the key
  for (const unsigned char c : key) {
    hash = (hash ^ c) * 1099511628211ULL;
  }
  char name[32];
  std::snprintf(name, sizeof name, "plugin-%016llx", static_cast<unsigned long long>(hash));
  return dir / name;
}

// What an entry says: line 1 the key, line 2 "ok" or "rejected <reason>".
struct Remembered {
  bool ok = false;
  std::string reason;
};

std::optional<Remembered> remembered(const fs::path& entry, const std::string& key) {
  auto text = read_regular_file(entry.string(), std::size_t{64} * 1024, "verdict");
  if (!text) {
    return std::nullopt;
  }
  const std::size_t eol = text->find('\n');
  if (eol == std::string::npos || text->compare(0, eol, key) != 0) {
    return std::nullopt;
  }
  std::string verdict = text->substr(eol + 1);
  while (!verdict.empty() && verdict.back() == '\n') {
    verdict.pop_back();
  }
  if (verdict == kCachedOk) {
    return Remembered{true, {}};
  }
  if (verdict.compare(0, kCachedRejected.size(), kCachedRejected) == 0) {
    return Remembered{false, verdict.substr(kCachedRejected.size())};
  }
  return std::nullopt;
}

// Best effort: a cache that cannot be written only means the next run checks the file again.
void remember(const fs::path& dir, const fs::path& entry, const std::string& content) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    return;
  }
  std::string temp = (dir / ".plugin-XXXXXX").string();
  UniqueFd fd(::mkstemp(temp.data()));
  if (!fd) {
    return;
  }
  const bool written = write_all(fd.get(), content.data(), content.size()) == 0;
  ::close(fd.release());
  if (!written || ::rename(temp.c_str(), entry.c_str()) != 0) {
    ::unlink(temp.c_str());
  }
}

std::string cached_note(const fs::path& entry) {
  return " (remembered from an earlier check, " + entry.string() +
         "; checked again when the file changes or that entry is removed)";
}

// The child ---------------------------------------------------------------------------------------------------

[[noreturn]] void child_main(int verdict_fd, const CheckedFile& file, const LoadOptions& options) {
  disable_call_guards();  // how the plugin ends here is the verdict
  for (const int s : {SIGINT, SIGTERM, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) {
    std::signal(s, SIG_DFL);
  }
  const int null_fd = ::open("/dev/null", O_RDWR);  // the plugin's chatter while loading is the host's to print
  if (null_fd >= 0) {
    ::dup2(null_fd, STDIN_FILENO);
    ::dup2(null_fd, STDOUT_FILENO);
    ::dup2(null_fd, STDERR_FILENO);
  }
  LoadOptions direct = options;
  direct.probe = false;
  auto loaded = load_checked_plugin(file, direct);
  const std::string verdict = loaded ? std::string(kOk) : std::string(kRejected) + loaded.error().message;
  write_all(verdict_fd, verdict.data(), verdict.size());
  exit_now(0);  // no destructors, no atexit handlers: they belong to the parent
}

std::string signal_text(int signal_number) {
  const char* abbrev = sigabbrev_np(signal_number);
  const char* description = sigdescr_np(signal_number);
  return std::string("SIG") + (abbrev != nullptr ? abbrev : std::to_string(signal_number).c_str()) +
         (description != nullptr ? std::string(" (") + description + ")" : std::string());
}

// Reads the child's verdict until it has exited and the pipe is drained, or the time is up (then kills it).
struct ChildEnd {
  std::string verdict;
  int status = 0;
  bool timed_out = false;
};

ChildEnd await_child(pid_t pid, int verdict_fd) {
  ChildEnd end;
  const auto deadline = std::chrono::steady_clock::now() + probe_timeout();
  bool pipe_open = true;
  for (;;) {
    bool drained = true;
    if (pipe_open) {
      pollfd p{verdict_fd, POLLIN, 0};
      if (::poll(&p, 1, 50) > 0) {
        char buffer[4096];
        const ssize_t n = ::read(verdict_fd, buffer, sizeof buffer);
        if (n > 0) {
          end.verdict.append(buffer, static_cast<std::size_t>(n));
        }
        if (n == 0 || (n < 0 && errno != EINTR)) {
          pipe_open = false;
        }
        drained = n <= 0;
      }
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    // Exited with nothing left to read now: done, even if a process it started still holds the pipe.
    if (drained && ::waitpid(pid, &end.status, WNOHANG) == pid) {
      return end;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      break;
    }
  }
  ::kill(pid, SIGKILL);
  end.timed_out = true;
  while (::waitpid(pid, &end.status, 0) < 0 && errno == EINTR) {}
  return end;
}

// The child's verdict, and whether it is one to remember: a clean load, or a death (crash, hang, exit) that would
// cost as much to find again, but not a refusal in words (init failed: maybe a server that is back later).
struct Judgement {
  std::optional<std::string> rejection;
  bool remember = true;
};

Judgement judge(const ChildEnd& end) {
  if (end.timed_out) {
    return {"did not finish loading and initialising within " + std::to_string(probe_timeout().count()) +
                " s in the child that checks new plugins (expected init to return): not loaded",
            true};
  }
  if (WIFSIGNALED(end.status)) {
    return {"crashed while loading or initialising, with " + signal_text(WTERMSIG(end.status)) +
                ", in the child that checks new plugins (expected to load and return): not loaded",
            true};
  }
  if (end.verdict == kOk) {
    return {std::nullopt, true};
  }
  if (end.verdict.compare(0, kRejected.size(), kRejected) == 0) {
    return {end.verdict.substr(kRejected.size()), false};
  }
  return {"ended the process with exit status " + std::to_string(WIFEXITED(end.status) ? WEXITSTATUS(end.status) : -1) +
              " while loading or initialising (expected to return to the host): not loaded",
          true};
}

// What a file that passed leaves behind should it fail in this process after all: a refusal in its entry.
detail::LoadRecovery recovery_for(const fs::path& entry, const std::string& key) {
  if (entry.empty()) {
    return {};
  }
  return {entry.string(), key + "\n" + std::string(kCachedRejected) +
                              "loaded cleanly in the child that checks new plugins, then failed when dgxhost itself "
                              "loaded it (it behaves differently there): not loaded\n"};
}

}  // namespace

std::chrono::seconds probe_timeout() {
  return std::chrono::seconds(
      seconds_from_env("DGX_PROBE_TIMEOUT_S", static_cast<unsigned>(kProbeTimeout.count()), 3600));
}

fs::path probe_cache_dir() {
  if (const char* dir = std::getenv("DGX_CACHE_DIR"); dir != nullptr && *dir != '\0') {
    return std::string_view(dir) == "off" ? fs::path() : fs::path(dir);
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg == '/') {
    return fs::path(xdg) / "dgxhost";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home == '/') {
    return fs::path(home) / ".cache" / "dgxhost";
  }
  return {};
}

ProbeVerdict probe_plugin(const CheckedFile& file, const LoadOptions& options) {
  const fs::path cache = probe_cache_dir();
  const std::string key = cache_key(file);
  const fs::path entry = cache.empty() ? fs::path() : cache_entry(cache, key);
  if (!entry.empty()) {
    if (const auto known = remembered(entry, key)) {
      if (known->ok) {
        return {std::nullopt, true, recovery_for(entry, key)};
      }
      return {known->reason + cached_note(entry), true, {}};
    }
  }

  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    return {};
  }
  UniqueFd read_end(fds[0]);
  UniqueFd write_end(fds[1]);
  std::cout.flush();  // what is buffered now must not be written twice
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    return {};
  }
  if (pid == 0) {
    ::close(read_end.release());
    child_main(write_end.get(), file, options);
  }
  write_end = UniqueFd();
  const Judgement judgement = judge(await_child(pid, read_end.get()));
  if (!entry.empty() && judgement.remember) {
    remember(cache, entry,
             key + "\n" + (judgement.rejection ? std::string(kCachedRejected) + *judgement.rejection : "ok") + "\n");
  }
  return {judgement.rejection, false, judgement.rejection ? detail::LoadRecovery{} : recovery_for(entry, key)};
}

}  // namespace dgx
