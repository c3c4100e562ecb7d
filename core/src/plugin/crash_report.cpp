#include "dgx/core/plugin/crash_report.hpp"

#include <unistd.h>

#include <array>
#include <atomic>
#include <csignal>
#include <cstring>
#include <vector>

#include "dgx/core/support/exit_codes.hpp"

namespace dgx {

namespace {

// The handler may only read fixed buffers; the strings are copied in from the main thread.
constexpr std::size_t kBufferSize = 1024;
std::array<char, kBufferSize> g_scope{};
std::array<char, kBufferSize> g_note{};
std::array<char, 64> g_rank{};
std::atomic<bool> g_in_scope{false};
std::string g_current;  // the innermost scope, for nesting (main thread only)

template <std::size_t N> void copy_to(std::array<char, N>& buffer, const std::string& text) {
  const std::size_t n = std::min(text.size(), buffer.size() - 1);
  std::memcpy(buffer.data(), text.data(), n);
  buffer[n] = '\0';
}

void write_text(const char* text) {
  std::size_t length = std::strlen(text);
  while (length > 0) {
    const ssize_t n = ::write(STDERR_FILENO, text, length);
    if (n <= 0) {
      return;
    }
    text += n;
    length -= static_cast<std::size_t>(n);
  }
}

void set_scope(const std::string& what) {
  g_in_scope.store(false);
  copy_to(g_scope, what);
  g_current = what;
  g_in_scope.store(!what.empty());
}

void write_prefix() {
  write_text("dgxhost");
  if (g_rank[0] != '\0') {
    write_text(" ");
    write_text(g_rank.data());
  }
  write_text(": error: ");
}

void write_note_line() {
  if (g_note[0] != '\0') {
    write_text("; ");
    write_text(g_note.data());
  }
  write_text("\n");
}

extern "C" void on_crash(int signal_number) {
  if (!g_in_scope.load()) {  // not in plugin code: the host's own bug, leave it to the default action
    std::signal(signal_number, SIG_DFL);
    ::raise(signal_number);
    return;
  }
  const char* abbrev = sigabbrev_np(signal_number);
  write_prefix();
  write_text(g_scope.data());
  write_text(": the plugin crashed with SIG");
  write_text(abbrev != nullptr ? abbrev : "?");
  write_text("; the run ends here (exit code 6)");
  write_note_line();
  ::_exit(to_int(ExitCode::plugin_crashed));
}

}  // namespace

void install_crash_handlers() {
  static std::vector<char> alternate_stack(std::max<std::size_t>(SIGSTKSZ, std::size_t{64} * 1024));
  stack_t stack{};
  stack.ss_sp = alternate_stack.data();
  stack.ss_size = alternate_stack.size();
  ::sigaltstack(&stack, nullptr);  // a stack overflow in plugin code still gets its line
  struct sigaction action {};
  action.sa_handler = on_crash;
  action.sa_flags = SA_ONSTACK | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  for (const int s : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) {
    ::sigaction(s, &action, nullptr);
  }
}

CrashScope::CrashScope(const std::string& what) : previous_(g_current) { set_scope(what); }
CrashScope::~CrashScope() { set_scope(previous_); }

void end_after_interrupt(unsigned grace_s) {
  char seconds[16];
  int n = 0;
  char digits[16];
  do {
    digits[n++] = static_cast<char>('0' + grace_s % 10);
    grace_s /= 10;
  } while (grace_s > 0 && n < 15);
  for (int i = 0; i < n; ++i) {
    seconds[i] = digits[n - 1 - i];
  }
  seconds[n] = '\0';
  write_prefix();
  write_text("interrupted, and ");
  write_text(g_in_scope.load() ? g_scope.data() : "the run");
  write_text(" did not return within ");
  write_text(seconds);
  write_text(" s; stopping now without the final report (exit code 130)");
  write_note_line();
  ::_exit(to_int(ExitCode::interrupted));
}

void set_crash_note(const std::string& note) { copy_to(g_note, note); }
void set_crash_rank_label(const std::string& label) { copy_to(g_rank, label); }

}  // namespace dgx
