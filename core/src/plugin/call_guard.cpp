#include "dgx/core/plugin/call_guard.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <iostream>
#include <set>
#include <thread>
#include <vector>

#include "dgx/core/plugin/cancellation.hpp"
#include "dgx/core/support/text.hpp"

namespace dgx {

namespace {

std::atomic<bool> g_armed{false};
const Logger* g_logger = nullptr;
std::string g_current;  // the innermost call, for nesting (main thread)
detail::LoadRecovery g_current_recovery;

// The host's signal handlers as installed, which every call gets back.
constexpr std::array<int, 8> kHostSignals = {SIGINT, SIGTERM, SIGALRM, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
std::array<struct sigaction, kHostSignals.size()> g_host_actions{};
sigset_t g_host_mask{};  // the host's signal mask at install_call_guards (its calls into plugins keep it)
// What the watchdog found and restored during a call, per signal it watches (SIGINT, SIGTERM): 0 nothing, else
// 1 + the index of the disposition's name in kDispositions, for the warning when the call returns.
constexpr std::array<const char*, 3> kDispositions = {"SIG_IGN", "SIG_DFL", "a handler of its own"};
std::array<std::atomic<int>, 2> g_found_by_watchdog{};

// stdout and stderr as the host was given them: a copy to restore from, and the file they were.
struct StdStream {
  int fd = -1;
  int copy = -1;
  dev_t dev = 0;
  ino_t ino = 0;
  const char* name = "";
};
std::array<StdStream, 2> g_streams{};

void* handler_of(const struct sigaction& a) {
  return (a.sa_flags & SA_SIGINFO) != 0 ? reinterpret_cast<void*>(a.sa_sigaction)
                                        : reinterpret_cast<void*>(a.sa_handler);
}

std::size_t disposition(const struct sigaction& a) {
  if ((a.sa_flags & SA_SIGINFO) == 0 && a.sa_handler == SIG_IGN) {
    return 0;
  }
  if ((a.sa_flags & SA_SIGINFO) == 0 && a.sa_handler == SIG_DFL) {
    return 1;
  }
  return 2;
}

std::string signal_name(int signal_number) {
  const char* abbrev = sigabbrev_np(signal_number);
  return std::string("SIG") + (abbrev != nullptr ? abbrev : std::to_string(signal_number).c_str());
}

// Puts back the handler of kHostSignals[i] if it changed; 1 + what it was instead (kDispositions), or 0. Only
// system calls: the watchdog calls it too.
int restore_handler(std::size_t i) {
  struct sigaction now {};
  if (::sigaction(kHostSignals[i], nullptr, &now) != 0 || handler_of(now) == handler_of(g_host_actions[i])) {
    return 0;
  }
  ::sigaction(kHostSignals[i], &g_host_actions[i], nullptr);
  return 1 + static_cast<int>(disposition(now));
}

// What the call changed of the host's process state, now put back: "set SIGINT to SIG_IGN, closed stdout".
std::vector<std::string> restore_host_state() {
  std::vector<std::string> changes;
  for (std::size_t i = 0; i < kHostSignals.size(); ++i) {
    int found = restore_handler(i);
    if (i < g_found_by_watchdog.size()) {
      found = std::max(found, g_found_by_watchdog[i].exchange(0));
    }
    if (found > 0) {
      changes.push_back("set " + signal_name(kHostSignals[i]) + " to " +
                        kDispositions[static_cast<std::size_t>(found - 1)]);
    }
  }
  // The host's own mask (cancellation.hpp: SIGINT and SIGTERM blocked, a thread of the host takes them; SIGALRM
  // open for the grace period): whatever a plugin changed of it is put back.
  sigset_t blocked;
  sigemptyset(&blocked);
  if (::pthread_sigmask(SIG_BLOCK, nullptr, &blocked) == 0) {
    for (const int s : {SIGINT, SIGTERM, SIGALRM}) {
      const bool host_blocks = sigismember(&g_host_mask, s) == 1;
      if ((sigismember(&blocked, s) == 1) != host_blocks) {
        sigset_t one;
        sigemptyset(&one);
        sigaddset(&one, s);
        ::pthread_sigmask(host_blocks ? SIG_BLOCK : SIG_UNBLOCK, &one, nullptr);
        changes.push_back((host_blocks ? "unblocked " : "blocked ") + signal_name(s));
      }
    }
  }
  for (const StdStream& stream : g_streams) {
    if (stream.copy < 0) {
      continue;
    }
    struct stat st {};
    const bool open = ::fstat(stream.fd, &st) == 0;
    if (open && st.st_dev == stream.dev && st.st_ino == stream.ino) {
      continue;
    }
    ::dup2(stream.copy, stream.fd);
    changes.push_back(std::string(open ? "replaced " : "closed ") + stream.name);
  }
  return changes;
}

void warn_once(const std::string& what, const std::vector<std::string>& changes) {
  static std::set<std::string> warned;  // one warning per call and change, not one per sample
  const std::string key = what.substr(0, what.find("()")) + ":" + text::join(changes, ",");
  if (!warned.insert(key).second) {
    return;
  }
  const std::string message = what + ": the plugin " + text::join(changes, ", ") + "; dgxhost restored its own";
  if (g_logger != nullptr) {
    g_logger->warn(message);
  } else {
    std::cerr << "dgxhost: warning: " << message << "\n";
  }
}

// Watchdog --------------------------------------------------------------------------------------------------------

// Every 100 ms during a call: Ctrl-C keeps working while a plugin that ignores it runs, and a call past its
// deadline, or past Ctrl-C, by the grace period ends the process. Only atomics and fixed buffers: the main thread is
// busy.
[[noreturn]] void watch() {
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (!g_armed.load() || !detail::in_scope()) {
      continue;
    }
    for (std::size_t i = 0; i < g_found_by_watchdog.size(); ++i) {  // SIGINT, SIGTERM
      if (const int found = restore_handler(i); found > 0) {
        g_found_by_watchdog[i].store(found);
      }
    }
    const double deadline = call_deadline();
    const unsigned grace = interrupt_grace_seconds();
    // The grace period after Ctrl-C is SIGALRM's to end, but a plugin may ignore or block SIGALRM, or take the
    // alarm for its own use: a call still running past it is ended here too, as SIGALRM would have.
    if (const double interrupted = cancel_requested_at(); interrupted > 0 && steady_seconds() > interrupted + grace) {
      end_after_interrupt(grace);
    }
    if (deadline > 0 && steady_seconds() > deadline + grace) {
      const std::string happened = "did not return within " + std::to_string(grace) + " s " + call_deadline_reason();
      detail::end_in_scope(happened.c_str());
    }
  }
}

void format_status(char* out, std::size_t size, const char* function, int status) {
  char digits[16];
  std::size_t d = 0;
  unsigned magnitude = status < 0 ? 0U - static_cast<unsigned>(status) : static_cast<unsigned>(status);
  do {
    digits[d++] = static_cast<char>('0' + magnitude % 10);
    magnitude /= 10;
  } while (magnitude > 0 && d < sizeof digits);
  std::size_t n = 0;
  auto put = [&](char c) {
    if (n + 1 < size) {
      out[n++] = c;
    }
  };
  for (const char* p = "ended the process with "; *p != '\0'; ++p) {
    put(*p);
  }
  for (const char* p = function; *p != '\0'; ++p) {
    put(*p);
  }
  put('(');
  if (status < 0) {
    put('-');
  }
  while (d > 0) {
    put(digits[--d]);
  }
  put(')');
  out[n] = '\0';
}

}  // namespace

void install_call_guards(const Logger* logger) {
  g_logger = logger;
  ::pthread_sigmask(SIG_BLOCK, nullptr, &g_host_mask);
  for (std::size_t i = 0; i < kHostSignals.size(); ++i) {
    ::sigaction(kHostSignals[i], nullptr, &g_host_actions[i]);
  }
  const std::array<const char*, 2> names = {"stdout (fd 1)", "stderr (fd 2)"};
  for (int fd = STDOUT_FILENO; fd <= STDERR_FILENO; ++fd) {
    StdStream& stream = g_streams[static_cast<std::size_t>(fd - STDOUT_FILENO)];
    struct stat st {};
    if (stream.copy >= 0 || ::fstat(fd, &st) != 0) {
      continue;  // already taken, or dgxhost was started without it: nothing to restore
    }
    stream = {fd, ::fcntl(fd, F_DUPFD_CLOEXEC, 10), st.st_dev, st.st_ino, names[static_cast<std::size_t>(fd - 1)]};
  }
  static const bool started = [] {
    std::thread(watch).detach();
    return true;
  }();
  (void)started;
  g_armed.store(true);
}

void disable_call_guards() { g_armed.store(false); }

CallGuard::CallGuard(std::string what, detail::LoadRecovery recovery)
    : what_(std::move(what)), previous_(g_current), previous_recovery_(g_current_recovery) {
  g_current = what_;
  g_current_recovery = std::move(recovery);
  detail::set_scope(g_current, g_current_recovery);
}

CallGuard::~CallGuard() {
  g_current = previous_;
  g_current_recovery = previous_recovery_;
  detail::set_scope(g_current, g_current_recovery);
  if (!g_armed.load()) {
    return;
  }
  const std::vector<std::string> changes = restore_host_state();
  if (!changes.empty()) {
    warn_once(what_, changes);
  }
}

bool guard_signal_change(int signal_number, const struct sigaction* wanted, const void* caller) {
  if (wanted == nullptr || !g_armed.load()) {
    return false;
  }
  std::size_t index = g_found_by_watchdog.size();
  for (std::size_t i = 0; i < g_found_by_watchdog.size(); ++i) {  // SIGINT, SIGTERM
    if (kHostSignals[i] == signal_number) {
      index = i;
    }
  }
  if (index == g_found_by_watchdog.size()) {
    return false;
  }
  // dgxhost's own code may change them (the cancellation handlers); anything else may not.
  Dl_info own{}, from{};
  static const int anchor = 0;
  if (::dladdr(&anchor, &own) != 0 && ::dladdr(caller, &from) != 0 && own.dli_fbase == from.dli_fbase) {
    return false;
  }
  g_found_by_watchdog[index].store(1 + static_cast<int>(disposition(*wanted)));
  return true;
}

void guard_exit(int status, const char* function, const void* caller) {
  if (!g_armed.load()) {
    return;
  }
  char happened[96];
  format_status(happened, sizeof happened, function, status);
  if (detail::in_scope()) {
    char text[112] = "the plugin ";
    std::strncat(text, happened, sizeof text - std::strlen(text) - 1);
    detail::end_in_scope(text);
  }
  if (const char* file = plugin_library_at(caller)) {
    detail::end_outside_scope(file, happened);
  }
}

}  // namespace dgx
