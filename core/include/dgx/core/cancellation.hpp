// Ctrl-C and SIGTERM ask the running workload to stop; results gathered so far are still reported. A second
// Ctrl-C terminates at once (the default action is restored after the first).
#pragma once

namespace dgx {

void install_cancellation_handlers();
[[nodiscard]] bool cancel_requested();
void request_cancel();  // what the signal handler does; for tests
void reset_cancel();    // for tests

}  // namespace dgx
