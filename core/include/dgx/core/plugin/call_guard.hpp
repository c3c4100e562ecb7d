// Every call into a plugin (opening its library, init, can_measure, create, setup, ..., run, project, destroy,
// probe, shutdown) runs inside a CallGuard, in this process: a rank's MPI and CUDA state belong to the process that
// calls the plugin, so the host guards the call instead of moving it to a worker (docs/design-reliability.md).
// Whatever the plugin does, dgxhost never exits 0 without its results, and an abnormal end names the plugin, the
// call and what happened, with the journal intact:
//  - a crash during the call names it (crash_report.hpp); a crash in a thread the plugin started, outside any
//    call, names the plugin by the library the faulting code is in;
//  - exit(), _exit(), _Exit() or quick_exit() from the plugin end the process with exit code 6 and that line
//    (dgxhost's executable defines them: exit_hook.cpp);
//  - a call still running the grace period (DGX_INTERRUPT_GRACE_S, 10 s) after its deadline (runner.max_time for
//    a sample, DGX_PROJECT_TIMEOUT_S for project, the call itself for shutdown) ends the process the same way, and
//    one still running it after Ctrl-C or SIGTERM with exit code 130 (the watchdog thread);
//  - after the call, and every 100 ms during it for SIGINT and SIGTERM, the host's signal handlers, its signal
//    mask and its stdout and stderr are put back if the plugin changed them, with one warning naming the call.
#pragma once

#include <csignal>
#include <string>

#include "dgx/core/plugin/crash_report.hpp"
#include "dgx/core/support/log.hpp"

namespace dgx {

/// Takes the host's signal handlers (install them first), signal mask, stdout and stderr as they are now as what
/// every call restores, starts the watchdog and arms the exit hook. `logger` (or stderr, when null) says what was
/// restored; it must outlive every plugin call.
void install_call_guards(const Logger* logger);

/// In the child that checks a new plugin: no guard, no exit hook; how the plugin ends there is the verdict.
void disable_call_guards();

class CallGuard {
public:
  /// `what` names the call in every line ("spin:spin: run() of case 3/10 (100 us)"); `recovery` is for loading a
  /// file that passed the check in a child (crash_report.hpp).
  explicit CallGuard(std::string what, detail::LoadRecovery recovery = {});
  CallGuard(const CallGuard&) = delete;
  CallGuard& operator=(const CallGuard&) = delete;
  ~CallGuard();

private:
  std::string what_;
  std::string previous_;
  detail::LoadRecovery previous_recovery_;
};

/// The exit hook, for exit_hook.cpp: returns when the process may end with `status`; ends it with exit code 6 and
/// a line when a plugin asked for it, during a call into it or from its own code (`caller`) outside any.
/// Async-signal-safe.
void guard_exit(int status, const char* function, const void* caller);

/// The signal hook, for signal_hook.cpp: whether a change of `signal_number`'s action to `wanted`, asked from code at
/// `caller`, is refused. Once the guards are installed, SIGINT and SIGTERM keep the host's handlers whatever code
/// outside dgxhost itself asks (a plugin, during a call or from a thread of its own; a library it loaded): setting
/// them to SIG_IGN would discard a pending Ctrl-C or scheduler's SIGTERM even while the host blocks them. The
/// attempt is reported as a restored handler is ("the plugin set SIGINT to SIG_IGN; dgxhost restored its own").
bool guard_signal_change(int signal_number, const struct sigaction* wanted, const void* caller);

}  // namespace dgx
