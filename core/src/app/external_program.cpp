#include "dgx/core/app/external_program.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>

#include "dgx/core/support/files.hpp"

namespace dgx {

namespace {

// The child's exit code, as a shell reports it; waits through EINTR.
int wait_for(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      return -1;
    }
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Reads `fd` to its end; false when it holds more than `max_bytes`.
bool read_all(int fd, std::string& out, std::size_t max_bytes) {
  std::array<char, 65536> buffer{};
  for (;;) {
    const ssize_t n = read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return true;
    }
    out.append(buffer.data(), static_cast<std::size_t>(n));
    if (out.size() > max_bytes) {
      return false;
    }
  }
}

}  // namespace

Expected<ProgramOutput> run_program(const std::vector<std::string>& argv, std::size_t max_bytes) {
  std::array<int, 2> fds{};
  if (argv.empty() || pipe(fds.data()) != 0) {
    return Failure{ExitCode::run_failed, "cannot create a pipe to run a program: " + os_reason(errno)};
  }
  UniqueFd read_end(fds[0]), write_end(fds[1]);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, write_end.get(), STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, read_end.get());
  std::vector<std::string> words = argv;
  std::vector<char*> args;
  for (std::string& w : words) {
    args.push_back(w.data());
  }
  args.push_back(nullptr);
  // The host blocks SIGINT and SIGTERM in its threads (a thread of its own takes them): the program gets the usual
  // mask, so that Ctrl-C and a scheduler's SIGTERM reach it.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, &attributes, args.data(), environ);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  write_end = UniqueFd();
  if (rc != 0) {
    return Failure{ExitCode::run_failed, "cannot run " + argv[0] + ": " + os_reason(rc)};
  }
  ProgramOutput result;
  const bool complete = read_all(read_end.get(), result.out, max_bytes);
  read_end = UniqueFd();  // a child still writing gets SIGPIPE instead of blocking us
  result.exit_code = wait_for(pid);
  if (!complete) {
    return Failure{ExitCode::run_failed, argv[0] + " wrote more than " + std::to_string(max_bytes) + " bytes"};
  }
  return result;
}

}  // namespace dgx
