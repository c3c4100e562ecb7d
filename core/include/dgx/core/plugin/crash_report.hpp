// A plugin that crashes while the host is inside one of its calls (create, run, ...) ends the process: its memory
// can no longer be trusted. What the host can still do is say who crashed, where, and where the finished cases
// are, in one line on stderr, and end with a documented exit code (ExitCode::plugin_crashed). A crash outside
// plugin code is the host's own bug and keeps the default action (core dump).
#pragma once

#include <string>

namespace dgx {

/// Installs the handlers for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT (on an alternate stack).
void install_crash_handlers();

/// What the host is doing while an object of this class lives ("spin:spin: run() of case 3/10 (us=100)").
/// Scopes nest; the innermost is reported.
class CrashScope {
public:
  explicit CrashScope(const std::string& what);
  CrashScope(const CrashScope&) = delete;
  CrashScope& operator=(const CrashScope&) = delete;
  ~CrashScope();

private:
  std::string previous_;
};

/// A sentence added to the crash line, such as where the journal of finished cases is; empty for none.
void set_crash_note(const std::string& note);

/// Async-signal-safe: the line for a run that did not stop within `grace_s` seconds of Ctrl-C (naming the plugin
/// call in progress, if any), then _exit(130).
[[noreturn]] void end_after_interrupt(unsigned grace_s);

/// "rank 1" in a multi-rank job, as in the log's lines; empty for none.
void set_crash_rank_label(const std::string& label);

}  // namespace dgx
