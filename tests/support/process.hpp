// Test helper: runs a program with arguments and captures its exit code, stdout and stderr separately.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace dgx::testing {

struct ProcessResult {
  int exit_code = -1;  // 128 + signal number when killed by a signal
  std::string out;
  std::string err;
  double cpu_seconds = 0;          // user + system time the process used: what its work cost, whatever the load
  double signal_cpu_seconds = -1;  // run_process_signalled: its CPU time when the signal was sent (-1: never sent)
  long max_rss_kib = 0;            // its peak resident memory (getrusage's ru_maxrss): what it held, however loaded
};

/// Runs `program` with `args`; `env` entries are added to (or replace) the inherited environment.
ProcessResult run_process(const std::string& program, const std::vector<std::string>& args,
                          const std::map<std::string, std::string>& env = {});

/// When to send a signal: asked every 20 ms with what stderr holds so far and the process's CPU time.
using SignalWhen = std::function<bool(const std::string& err, double cpu_seconds)>;

/// Runs `program` as run_process does and sends it `signal_number` once, as soon as `when` says so: at a known
/// point of the run (a line on stderr, a file on disk), however loaded the machine is, instead of after a delay.
ProcessResult run_process_signalled(const std::string& program, const std::vector<std::string>& args,
                                    const std::map<std::string, std::string>& env, int signal_number,
                                    const SignalWhen& when);

}  // namespace dgx::testing
