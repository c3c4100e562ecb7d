// A plugin that ends the process abnormally (a crash inside one of its calls or in a thread it started, exit()
// during a call, a call that never returns) leaves memory the host can no longer trust. What the host can still
// do is say who, where and what, in one line on stderr, and end with a documented exit code (ExitCode::
// plugin_crashed), the journal of finished cases intact. This is the part that runs in a signal handler, the
// watchdog thread or the exit hook: fixed buffers the main thread fills in advance, the address ranges of the
// plugin libraries (a crash outside any call is attributed by the library its address is in), and the line.
// call_guard.hpp decides when; a crash outside plugin code is the host's own bug and keeps the default action.
#pragma once

#include <filesystem>
#include <string>

namespace dgx {

/// Installs the handlers for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT (on an alternate stack).
void install_crash_handlers();

/// A sentence added to the crash line, such as where the journal of finished cases is; empty for none.
void set_crash_note(const std::string& note);

/// "rank 1" in a multi-rank job, as in the log's lines; empty for none.
void set_crash_rank_label(const std::string& label);

/// Remembers the code of a plugin library just opened (`handle` from dlopen) for attribution by address.
void register_plugin_library(const std::filesystem::path& file, void* handle);

/// The plugin file whose code holds `address` (a fault's, a caller's), or nullptr. Async-signal-safe.
const char* plugin_library_at(const void* address);

/// From now on the run has ended with `code` (the plugins' shutdown() is next): an abnormal end of a plugin then
/// keeps this code, with a warning, instead of turning a finished run into a failure.
void set_final_exit_code(int code);

/// Lets an abnormal end while a file is loaded into this process, after it passed the check in a child, run the
/// command again without it (execve of /proc/self/exe with these arguments): for a single process only, never
/// for a rank of an MPI job. Call once, before plugins are loaded.
void allow_restart(int argc, const char* const* argv);

/// Async-signal-safe: ends the process at once with `code`, past the exit hook (call_guard.hpp) and atexit.
[[noreturn]] void exit_now(int code);

/// Async-signal-safe: the line for a run that did not stop within `grace_s` seconds of Ctrl-C (naming the plugin
/// call in progress, if any), then exit 130.
[[noreturn]] void end_after_interrupt(unsigned grace_s);

namespace detail {

/// What an abnormal end inside the current call does besides its line, for call_guard.cpp: while a file is loaded
/// after it passed the check in a child, write `rejection` into the check's cache as `cache_entry` (so that the
/// file is refused from now on) and restart where allow_restart() allows it.
struct LoadRecovery {
  std::string cache_entry;  // empty: no recovery
  std::string rejection;    // the cache entry's content
};

/// Sets the call being made ("spin:spin: run() of case 3/10 (us=100)"); empty for none. Main thread.
void set_scope(const std::string& what, const LoadRecovery& recovery);
[[nodiscard]] bool in_scope();

/// Async-signal-safe: "<scope>: <happened>", the consequence, and the end (exit 6, the kept code, or a restart).
[[noreturn]] void end_in_scope(const char* happened);
/// Async-signal-safe: "the plugin <file> <happened> outside any call into it", and the end.
[[noreturn]] void end_outside_scope(const char* file, const char* happened);

}  // namespace detail

}  // namespace dgx
