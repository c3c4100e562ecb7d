// The exit hook (call_guard.hpp): dgxhost's own exit, _exit, _Exit and quick_exit. The executable exports them
// (core/CMakeLists.txt: --export-dynamic-symbol), and the executable comes first in the symbol lookup of every
// library it loads, so a plugin's call to any of them lands here; libc's own internal calls do not. Each asks
// guard_exit() first, which ends the process with exit code 6 and a line when a plugin asked during a call (or
// from its code outside any), then does what libc's would. Built into dgxhost only: a test program that loads
// plugins keeps libc's.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>

#include "dgx/core/plugin/call_guard.hpp"

namespace {

using ExitFunction = void (*)(int);

ExitFunction libc(const char* name) noexcept { return reinterpret_cast<ExitFunction>(::dlsym(RTLD_NEXT, name)); }

// Looked up before main, not while the process is ending.
const ExitFunction g_exit = libc("exit");
const ExitFunction g_quick_exit = libc("quick_exit");

}  // namespace

extern "C" {

// The declarations in <stdlib.h> and <unistd.h> say noreturn; these definitions keep to it.
void exit(int status) {
  dgx::guard_exit(status, "exit", __builtin_return_address(0));
  if (g_exit != nullptr) {
    g_exit(status);
  }
  dgx::exit_now(status);
}

void quick_exit(int status) {
  dgx::guard_exit(status, "quick_exit", __builtin_return_address(0));
  if (g_quick_exit != nullptr) {
    g_quick_exit(status);
  }
  dgx::exit_now(status);
}

void _exit(int status) {  // NOLINT(bugprone-reserved-identifier): libc's name, on purpose
  dgx::guard_exit(status, "_exit", __builtin_return_address(0));
  dgx::exit_now(status);
}

void _Exit(int status) {  // NOLINT(bugprone-reserved-identifier): libc's name, on purpose
  dgx::guard_exit(status, "_Exit", __builtin_return_address(0));
  dgx::exit_now(status);
}

}  // extern "C"
