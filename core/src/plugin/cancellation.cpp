#include "dgx/core/plugin/cancellation.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#include "dgx/core/plugin/crash_report.hpp"

namespace dgx {

namespace {

std::atomic<bool> g_cancel{false};
std::atomic<double> g_cancel_at{0};      // steady-clock seconds of the first request; 0: none
std::atomic<double> g_call_deadline{0};  // steady-clock seconds; 0: none
std::array<char, 256> g_deadline_reason{};
std::atomic<unsigned> g_grace_s{kInterruptGraceSeconds};

// The first request: the run is to stop, and the grace period starts (SIGALRM, and the watchdog for a plugin call
// that keeps SIGALRM from ending it: call_guard.cpp). Async-signal-safe.
bool first_request() {
  if (g_cancel.exchange(true)) {
    return false;
  }
  g_cancel_at.store(steady_seconds());
  ::alarm(g_grace_s.load());
  return true;
}

// The first SIGINT or SIGTERM asks the run to stop and starts the grace period. The handler stays installed (a
// plugin call that replaces it gets it back: call_guard.hpp), so what follows is decided here: a second Ctrl-C
// ends the process at once, by SIGINT as a shell expects; another SIGTERM is the same request again.
extern "C" void on_signal(int signal_number) {
  if (first_request()) {
    return;
  }
  if (signal_number == SIGINT) {
    std::signal(SIGINT, SIG_DFL);
    ::raise(SIGINT);
  }
}

extern "C" void on_deadline(int) { end_after_interrupt(g_grace_s.load()); }

// SIGINT and SIGTERM are blocked in every thread the host starts from install_cancellation_handlers() on (plugin
// threads inherit the mask), and this thread takes them with sigwait: a blocked signal stays pending whatever a
// plugin thread sets its disposition to, so a plugin that keeps re-ignoring them can no longer make the host lose
// them. The handler stays installed for threads started before (MPI's), which do not block them.
void wait_for_signals(sigset_t set) {
  for (;;) {
    int signal_number = 0;
    if (::sigwait(&set, &signal_number) != 0) {
      continue;
    }
    if (first_request()) {
      continue;
    }
    if (signal_number == SIGINT) {  // the second Ctrl-C: ended by SIGINT at once, as a shell expects
      std::signal(SIGINT, SIG_DFL);
      sigset_t interrupt;
      sigemptyset(&interrupt);
      sigaddset(&interrupt, SIGINT);
      ::pthread_sigmask(SIG_UNBLOCK, &interrupt, nullptr);
      ::raise(SIGINT);
    }
  }
}

}  // namespace

unsigned seconds_from_env(const char* name, unsigned fallback, unsigned max) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') {
    return fallback;
  }
  char* end = nullptr;
  const unsigned long value = std::strtoul(text, &end, 10);
  return *end == '\0' && value >= 1 && value <= max ? static_cast<unsigned>(value) : fallback;
}

unsigned project_timeout_seconds() { return seconds_from_env("DGX_PROJECT_TIMEOUT_S", kProjectTimeoutSeconds, 86400); }

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void install_cancellation_handlers() {
  g_grace_s.store(seconds_from_env("DGX_INTERRUPT_GRACE_S", kInterruptGraceSeconds, 3600));
  struct sigaction action {};
  sigemptyset(&action.sa_mask);
  action.sa_handler = on_deadline;
  ::sigaction(SIGALRM, &action, nullptr);
  action.sa_handler = on_signal;
  action.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
  static std::once_flag started;
  std::call_once(started, [] {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    ::pthread_sigmask(SIG_BLOCK, &set, nullptr);
    std::thread(wait_for_signals, set).detach();
  });
}

bool cancel_requested() { return g_cancel.load(); }
double cancel_requested_at() { return g_cancel_at.load(); }
void request_cancel() { g_cancel.store(true); }
void reset_cancel() {
  g_cancel.store(false);
  g_cancel_at.store(0);
}
unsigned interrupt_grace_seconds() { return g_grace_s.load(); }

void set_call_deadline(double steady_seconds, const std::string& what) {
  g_call_deadline.store(0);
  const std::size_t n = std::min(what.size(), g_deadline_reason.size() - 1);
  std::memcpy(g_deadline_reason.data(), what.data(), n);
  g_deadline_reason[n] = '\0';
  g_call_deadline.store(steady_seconds);
}

double call_deadline() { return g_call_deadline.load(); }
const char* call_deadline_reason() { return g_deadline_reason.data(); }

bool call_deadline_passed() {
  const double deadline = g_call_deadline.load();
  if (deadline <= 0) {
    return false;
  }
  return steady_seconds() > deadline;
}

}  // namespace dgx
