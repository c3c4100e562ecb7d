#include "dgx/core/plugin/crash_report.hpp"

#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "dgx/core/support/exit_codes.hpp"

namespace dgx {

namespace {

// Everything a handler reads is a fixed buffer, filled in from the main thread before it can be needed.
constexpr std::size_t kBufferSize = 1024;
std::array<char, kBufferSize> g_scope{};
std::array<char, kBufferSize> g_note{};
std::array<char, 64> g_rank{};
std::atomic<bool> g_in_scope{false};
std::atomic<int> g_final_code{-1};

// Loading a file that passed the check in a child: where to record that it failed here after all.
std::array<char, kBufferSize> g_entry{};
std::array<char, kBufferSize> g_entry_temp{};
std::array<char, 2 * kBufferSize> g_rejection{};
std::atomic<bool> g_recovering{false};

// The command line and environment to run again with (allow_restart).
std::vector<char*>* g_restart_argv = nullptr;
std::vector<char*>* g_restart_envp = nullptr;

// The code of each plugin library opened, for attribution by address.
struct Library {
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
  std::array<char, 512> file{};
};
constexpr std::size_t kMaxLibraries = 128;
std::array<Library, kMaxLibraries> g_libraries{};
std::atomic<std::size_t> g_library_count{0};

template <std::size_t N> void copy_to(std::array<char, N>& buffer, const std::string& text) {
  const std::size_t n = std::min(text.size(), buffer.size() - 1);
  std::memcpy(buffer.data(), text.data(), n);
  buffer[n] = '\0';
}

// One line on stderr, built without allocating.
class Line {
public:
  Line& operator<<(const char* text) {
    while (text != nullptr && *text != '\0' && n_ + 1 < buffer_.size()) {
      buffer_[n_++] = *text++;
    }
    return *this;
  }
  Line& number(unsigned long long value, unsigned base = 10) {
    char digits[24];
    std::size_t d = 0;
    do {
      digits[d++] = "0123456789abcdef"[value % base];
      value /= base;
    } while (value > 0 && d < sizeof digits);
    while (d > 0 && n_ + 1 < buffer_.size()) {
      buffer_[n_++] = digits[--d];
    }
    return *this;
  }
  void write() {
    buffer_[n_ < buffer_.size() ? n_ : buffer_.size() - 1] = '\n';
    const char* text = buffer_.data();
    std::size_t left = std::min(n_ + 1, buffer_.size());
    while (left > 0) {
      const ssize_t written = ::write(STDERR_FILENO, text, left);
      if (written <= 0) {
        return;
      }
      text += written;
      left -= static_cast<std::size_t>(written);
    }
  }

private:
  std::array<char, 4096> buffer_{};
  std::size_t n_ = 0;
};

Line& prefix(Line& line, bool warning) {
  line << "dgxhost";
  if (g_rank[0] != '\0') {
    line << " " << g_rank.data();
  }
  return line << (warning ? ": warning: " : ": error: ");
}

Line& note(Line& line) {
  if (g_note[0] != '\0') {
    line << "; " << g_note.data();
  }
  return line;
}

// The end of a run that a plugin cut short: exit 6, or, once the run has ended, the code it ended with.
[[noreturn]] void end(Line& line) {
  const int kept = g_final_code.load();
  if (kept >= 0) {
    line << "; ignored: the run had already ended, its exit code stays ";
    line.number(static_cast<unsigned>(kept)).write();
    exit_now(kept);
  }
  note(line << "; the run ends here (exit code 6)").write();
  exit_now(to_int(ExitCode::plugin_crashed));
}

bool write_all_to(const char* path, const char* text) {
  const int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) {
    return false;
  }
  std::size_t left = std::strlen(text);
  bool ok = true;
  while (left > 0 && ok) {
    const ssize_t n = ::write(fd, text, left);
    ok = n > 0;
    text += ok ? n : 0;
    left -= ok ? static_cast<std::size_t>(n) : 0;
  }
  return ::close(fd) == 0 && ok;
}

// The file failed in this process although it passed the check in a child: the check's cache refuses it from now
// on, and the command runs again without it where that is allowed.
[[noreturn]] void recover(const char* happened) {
  const bool recorded =
      write_all_to(g_entry_temp.data(), g_rejection.data()) && ::rename(g_entry_temp.data(), g_entry.data()) == 0;
  const bool restart = recorded && g_restart_argv != nullptr;
  Line line;
  prefix(line, restart) << g_scope.data() << ": " << happened << " in dgxhost, although it passed the check in a child";
  if (recorded) {
    line << "; it is refused from now on (" << g_entry.data() << ")";
  }
  if (restart) {
    line << "; running the command again without it";
    line.write();
    ::execve("/proc/self/exe", g_restart_argv->data(), g_restart_envp->data());
    Line failed;
    prefix(failed, false) << "cannot run the command again";
    end(failed);
  }
  end(line);
}

std::uintptr_t fault_pc(const void* context) {
  if (context == nullptr) {
    return 0;
  }
  const auto* uc = static_cast<const ucontext_t*>(context);
#if defined(__x86_64__)
  return static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return static_cast<std::uintptr_t>(uc->uc_mcontext.pc);
#else
  (void)uc;
  return 0;
#endif
}

// The plugin whose code crashed: the faulting instruction's library, else the first plugin frame on the stack
// (abort() and std::terminate fault in libc, called from the plugin). backtrace() was warmed up at install.
const char* crashed_plugin(const void* context) {
  // NOLINTNEXTLINE(performance-no-int-to-ptr): the saved program counter is an address, read back as one
  if (const char* file = plugin_library_at(reinterpret_cast<const void*>(fault_pc(context)))) {
    return file;
  }
  std::array<void*, 48> frames{};
  const int n = ::backtrace(frames.data(), static_cast<int>(frames.size()));
  for (int i = 0; i < n; ++i) {
    if (const char* file = plugin_library_at(frames[static_cast<std::size_t>(i)])) {
      return file;
    }
  }
  return nullptr;
}

extern "C" void on_crash(int signal_number, siginfo_t* /*info*/, void* context) {
  const char* abbrev = sigabbrev_np(signal_number);
  char happened[64] = "the plugin crashed with SIG";
  std::strncat(happened, abbrev != nullptr ? abbrev : "?", sizeof happened - std::strlen(happened) - 1);
  if (detail::in_scope()) {
    detail::end_in_scope(happened);
  }
  if (const char* file = crashed_plugin(context)) {
    detail::end_outside_scope(file, happened + std::strlen("the plugin "));
  }
  std::signal(signal_number, SIG_DFL);  // not plugin code: the host's own bug, left to the default action
  ::raise(signal_number);
}

int add_segments(dl_phdr_info* info, std::size_t /*size*/, void* data) {
  auto* target = static_cast<const link_map*>(data);
  if (info->dlpi_addr != target->l_addr || info->dlpi_name == nullptr ||
      std::strcmp(info->dlpi_name, target->l_name) != 0) {
    return 0;
  }
  const std::size_t index = g_library_count.load();
  if (index >= kMaxLibraries) {
    return 1;
  }
  Library& library = g_libraries[index];
  library.begin = UINTPTR_MAX;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type == PT_LOAD) {
      library.begin = std::min<std::uintptr_t>(library.begin, info->dlpi_addr + segment.p_vaddr);
      library.end = std::max<std::uintptr_t>(library.end, info->dlpi_addr + segment.p_vaddr + segment.p_memsz);
    }
  }
  return 1;
}

}  // namespace

void install_crash_handlers() {
  static std::vector<char> alternate_stack(std::max<std::size_t>(SIGSTKSZ, std::size_t{64} * 1024));
  stack_t stack{};
  stack.ss_sp = alternate_stack.data();
  stack.ss_size = alternate_stack.size();
  ::sigaltstack(&stack, nullptr);  // a stack overflow in plugin code still gets its line
  std::array<void*, 4> warm{};
  ::backtrace(warm.data(), static_cast<int>(warm.size()));  // loads the unwinder now, not inside a handler
  struct sigaction action {};
  action.sa_sigaction = on_crash;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  for (const int s : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) {
    ::sigaction(s, &action, nullptr);
  }
}

void set_crash_note(const std::string& note) { copy_to(g_note, note); }
void set_crash_rank_label(const std::string& label) { copy_to(g_rank, label); }
void set_final_exit_code(int code) { g_final_code.store(code); }

void register_plugin_library(const std::filesystem::path& file, void* handle) {
  link_map* map = nullptr;
  if (handle == nullptr || ::dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr) {
    return;
  }
  const std::size_t index = g_library_count.load();
  if (index >= kMaxLibraries || plugin_library_at(reinterpret_cast<const void*>(map->l_ld)) != nullptr) {
    return;  // full, or this library is known (dlopen of the same file twice)
  }
  ::dl_iterate_phdr(add_segments, map);
  if (g_libraries[index].end > g_libraries[index].begin) {
    copy_to(g_libraries[index].file, file.string());
    g_library_count.store(index + 1);  // published whole: a handler sees only complete entries
  }
}

const char* plugin_library_at(const void* address) {
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  const std::size_t n = g_library_count.load();
  for (std::size_t i = 0; i < n; ++i) {
    if (a >= g_libraries[i].begin && a < g_libraries[i].end) {
      return g_libraries[i].file.data();
    }
  }
  return nullptr;
}

void allow_restart(int argc, const char* const* argv) {
  constexpr int kMaxRestarts = 3;  // each restart refuses one more file: a bound, not a loop
  const char* done = std::getenv("DGX_LOAD_RESTARTS");
  const int restarts = done != nullptr ? std::atoi(done) : 0;
  if (restarts >= kMaxRestarts || g_restart_argv != nullptr) {
    return;
  }
  static std::vector<std::string> strings;
  for (int i = 0; i < argc; ++i) {
    strings.emplace_back(argv[i]);
  }
  const std::size_t args = strings.size();
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (std::strncmp(*e, "DGX_LOAD_RESTARTS=", 18) != 0) {
      strings.emplace_back(*e);
    }
  }
  strings.push_back("DGX_LOAD_RESTARTS=" + std::to_string(restarts + 1));
  static std::vector<char*> argv_out;
  static std::vector<char*> envp_out;
  for (std::size_t i = 0; i < strings.size(); ++i) {
    (i < args ? argv_out : envp_out).push_back(strings[i].data());
  }
  argv_out.push_back(nullptr);
  envp_out.push_back(nullptr);
  g_restart_argv = &argv_out;
  g_restart_envp = &envp_out;
}

void exit_now(int code) {
  ::syscall(SYS_exit_group, code);
  __builtin_unreachable();
}

void end_after_interrupt(unsigned grace_s) {
  Line line;
  prefix(line, false) << "interrupted, and " << (detail::in_scope() ? g_scope.data() : "the run")
                      << " did not return within ";
  line.number(grace_s) << " s; stopping now without the final report (exit code 130)";
  note(line).write();
  exit_now(to_int(ExitCode::interrupted));
}

namespace detail {

void set_scope(const std::string& what, const LoadRecovery& recovery) {
  g_in_scope.store(false);
  copy_to(g_scope, what);
  g_recovering.store(false);
  if (!recovery.cache_entry.empty()) {
    copy_to(g_entry, recovery.cache_entry);
    copy_to(g_entry_temp, recovery.cache_entry + ".failed");
    copy_to(g_rejection, recovery.rejection);
    g_recovering.store(true);
  }
  g_in_scope.store(!what.empty());
}

bool in_scope() { return g_in_scope.load(); }

void end_in_scope(const char* happened) {
  if (g_recovering.load()) {
    recover(happened);
  }
  Line line;
  prefix(line, g_final_code.load() >= 0) << g_scope.data() << ": " << happened;
  end(line);
}

void end_outside_scope(const char* file, const char* happened) {
  Line line;
  prefix(line, g_final_code.load() >= 0) << "the plugin " << file << " " << happened
                                         << " outside any call into it (in a thread it started)";
  end(line);
}

}  // namespace detail

}  // namespace dgx
