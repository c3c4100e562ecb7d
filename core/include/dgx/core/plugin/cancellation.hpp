// Ctrl-C and SIGTERM ask the running workload to stop; results gathered so far are still reported. A second
// Ctrl-C terminates at once (the default action is restored after the first), and so does the end of a grace
// period (kInterruptGraceSeconds, or $DGX_INTERRUPT_GRACE_S) when a plugin call does not return: the process
// then ends with exit code 130 and one line naming the call it was waiting for; finished cases are in the
// journal.
#pragma once

namespace dgx {

inline constexpr unsigned kInterruptGraceSeconds = 10;

void install_cancellation_handlers();
[[nodiscard]] bool cancel_requested();
void request_cancel();  // what the signal handler does; for tests
void reset_cancel();    // for tests

/// A time limit on the plugin call in progress (runner.max_time for a sample), on the steady clock in seconds
/// since its epoch; 0 clears it. Once it has passed, a plugin asking whether to stop (the host API's
/// cancel_requested) is told yes, so that a plugin that polls ends an over-long sample at the limit.
void set_call_deadline(double steady_seconds);
[[nodiscard]] bool call_deadline_passed();

/// Sets a call deadline for its lifetime.
class CallDeadline {
public:
  explicit CallDeadline(double steady_seconds) { set_call_deadline(steady_seconds); }
  ~CallDeadline() { set_call_deadline(0); }
  CallDeadline(const CallDeadline&) = delete;
  CallDeadline& operator=(const CallDeadline&) = delete;
};

}  // namespace dgx
