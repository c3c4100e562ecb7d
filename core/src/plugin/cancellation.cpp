#include "dgx/core/plugin/cancellation.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <string>

#include "dgx/core/plugin/crash_report.hpp"

namespace dgx {

namespace {

std::atomic<bool> g_cancel{false};
std::atomic<double> g_call_deadline{0};  // steady-clock seconds; 0: none
unsigned g_grace_s = kInterruptGraceSeconds;

extern "C" void on_signal(int signal_number) {
  g_cancel.store(true);
  std::signal(signal_number, SIG_DFL);  // a second signal ends the process
  ::alarm(g_grace_s);                   // and so does a plugin that does not return in time
}

extern "C" void on_deadline(int) { end_after_interrupt(g_grace_s); }

}  // namespace

void install_cancellation_handlers() {
  if (const char* grace = std::getenv("DGX_INTERRUPT_GRACE_S"); grace != nullptr && *grace != '\0') {
    char* end = nullptr;
    const unsigned long value = std::strtoul(grace, &end, 10);
    if (*end == '\0' && value >= 1 && value <= 3600) {
      g_grace_s = static_cast<unsigned>(value);
    }
  }
  std::signal(SIGALRM, on_deadline);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
}

bool cancel_requested() { return g_cancel.load(); }
void request_cancel() { g_cancel.store(true); }
void reset_cancel() { g_cancel.store(false); }

void set_call_deadline(double steady_seconds) { g_call_deadline.store(steady_seconds); }

bool call_deadline_passed() {
  const double deadline = g_call_deadline.load();
  if (deadline <= 0) {
    return false;
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count() > deadline;
}

}  // namespace dgx
