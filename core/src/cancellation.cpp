#include "dgx/core/cancellation.hpp"

#include <atomic>
#include <csignal>

namespace dgx {

namespace {

std::atomic<bool> g_cancel{false};

extern "C" void on_signal(int signal_number) {
  g_cancel.store(true);
  std::signal(signal_number, SIG_DFL);  // a second signal ends the process
}

}  // namespace

void install_cancellation_handlers() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
}

bool cancel_requested() { return g_cancel.load(); }
void request_cancel() { g_cancel.store(true); }
void reset_cancel() { g_cancel.store(false); }

}  // namespace dgx
