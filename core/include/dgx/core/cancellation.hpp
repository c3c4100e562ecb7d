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

}  // namespace dgx
