// Ctrl-C and SIGTERM ask the running workload to stop; results gathered so far are still reported. SIGTERM is what
// Slurm, Kubernetes and mpirun send before they kill a job, so it is Ctrl-C too, handled once: a later SIGTERM
// (mpirun and the launchers repeat it to every process) changes nothing, while a second Ctrl-C terminates at once.
// So does the end of a grace period (kInterruptGraceSeconds, or $DGX_INTERRUPT_GRACE_S) when a plugin call does
// not return: the process then ends with exit code 130 and one line naming the call it was waiting for; finished
// cases are in the journal.
#pragma once

#include <string>
#include <utility>

namespace dgx {

inline constexpr unsigned kInterruptGraceSeconds = 10;
/// The limit on one project() call (a projection or an explore, which take seconds): generous, so that only a call
/// that is stuck meets it. $DGX_PROJECT_TIMEOUT_S changes it.
inline constexpr unsigned kProjectTimeoutSeconds = 600;

/// Makes SIGINT and SIGTERM ask the run to stop (cancel_requested), a second SIGINT end the process at once, and
/// the grace period (SIGALRM) end a run that does not stop. Blocks both in the calling thread and in every thread it
/// starts later, and takes them in a thread of its own (sigwait), so a plugin thread setting them to SIG_IGN cannot
/// make them lost; call it before any plugin is loaded.
void install_cancellation_handlers();
[[nodiscard]] bool cancel_requested();
/// When SIGINT or SIGTERM first asked the run to stop (steady_seconds()), 0 if neither has. Thread-safe.
[[nodiscard]] double cancel_requested_at();
void request_cancel();  // what the signal handler does; for tests
void reset_cancel();    // for tests

/// The grace period: kInterruptGraceSeconds, or $DGX_INTERRUPT_GRACE_S (1..3600) once the handlers are installed.
[[nodiscard]] unsigned interrupt_grace_seconds();

/// kProjectTimeoutSeconds, or $DGX_PROJECT_TIMEOUT_S (1..86400).
[[nodiscard]] unsigned project_timeout_seconds();

/// The whole number of seconds in environment variable `name` when it is 1..`max`, else `fallback`.
[[nodiscard]] unsigned seconds_from_env(const char* name, unsigned fallback, unsigned max);

/// The clock of call deadlines: the steady clock, in seconds since its epoch.
[[nodiscard]] double steady_seconds();

/// A time limit on the plugin call in progress (runner.max_time for a sample, project_timeout_seconds() for
/// project()), on the steady clock in seconds
/// since its epoch; 0 clears it. Once it has passed, a plugin asking whether to stop (the host API's
/// cancel_requested) is told yes, so that a plugin that polls ends an over-long sample at the limit; a call still
/// running the grace period later is ended by the watchdog (call_guard.hpp), which names the limit with `what`
/// ("after runner.max_time (2.000 s)").
void set_call_deadline(double steady_seconds, const std::string& what = {});
[[nodiscard]] bool call_deadline_passed();
/// The deadline in force (0: none) and what it is, for the watchdog. Thread-safe.
[[nodiscard]] double call_deadline();
[[nodiscard]] const char* call_deadline_reason();

/// Sets a call deadline for its lifetime.
class CallDeadline {
public:
  CallDeadline(double steady_seconds, const std::string& what) : what_(what) {
    set_call_deadline(steady_seconds, what);
  }
  ~CallDeadline() { set_call_deadline(0); }
  /// Moves the deadline, with what it now is.
  void move_to(double steady_seconds, std::string what) {
    what_ = std::move(what);
    set_call_deadline(steady_seconds, what_);
  }
  CallDeadline(const CallDeadline&) = delete;
  CallDeadline& operator=(const CallDeadline&) = delete;

private:
  std::string what_;
};

}  // namespace dgx
