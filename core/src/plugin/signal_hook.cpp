// The signal hook (call_guard.hpp): dgxhost's own sigaction and signal. The executable exports them
// (core/CMakeLists.txt:
// --export-dynamic-symbol) and comes first in the symbol lookup of every library it loads, so a plugin's call lands
// here; libc's own internal calls do not. A change of SIGINT's or SIGTERM's action asked from outside dgxhost is
// refused (guard_signal_change), everything else goes to libc's. Built into dgxhost only, as the exit hook is.
#include <dlfcn.h>

#include <csignal>

#include "dgx/core/plugin/call_guard.hpp"

namespace {

using SigactionFunction = int (*)(int, const struct sigaction*, struct sigaction*);
using SignalFunction = sighandler_t (*)(int, sighandler_t);

// Looked up before main, while one thread runs.
const auto g_sigaction = reinterpret_cast<SigactionFunction>(::dlsym(RTLD_NEXT, "sigaction"));
const auto g_signal = reinterpret_cast<SignalFunction>(::dlsym(RTLD_NEXT, "signal"));

}  // namespace

extern "C" {

int sigaction(int signal_number, const struct sigaction* action, struct sigaction* old) {
  if (g_sigaction == nullptr) {
    return -1;
  }
  if (dgx::guard_signal_change(signal_number, action, __builtin_return_address(0))) {
    return g_sigaction(signal_number, nullptr, old);  // refused: the old action stands, and is what was asked for
  }
  return g_sigaction(signal_number, action, old);
}

sighandler_t signal(int signal_number, sighandler_t handler) {
  struct sigaction wanted {};
  wanted.sa_handler = handler;
  if (dgx::guard_signal_change(signal_number, &wanted, __builtin_return_address(0)) && g_sigaction != nullptr) {
    struct sigaction current {};
    g_sigaction(signal_number, nullptr, &current);
    return current.sa_handler;
  }
  return g_signal != nullptr ? g_signal(signal_number, handler) : SIG_ERR;
}

}  // extern "C"
