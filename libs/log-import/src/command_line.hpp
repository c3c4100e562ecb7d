// Private to log-import/: the command a file shows running its benchmark ("genai-perf profile -m gpt2 \", "vllm bench
// serve --model ... --num-prompts 16"), as people paste it above the output: continued over lines ending in '\',
// maybe inside a markdown fence, behind a shell prompt or environment assignments.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dgx/log_import/log_text.hpp"

namespace dgx::logs {

struct CommandArgument {
  std::string text;
  int line = 0;
};

struct CommandLine {
  std::vector<CommandArgument> args;  // the words after the program, in order

  /// The value of an option spelt any of `names` ("--model", "-m"), as "--model X" or "--model=X".
  std::optional<CommandArgument> option(std::initializer_list<std::string_view> names) const;
  /// option() as a number.
  std::optional<double> number(std::initializer_list<std::string_view> names) const;
};

/// The first command that runs one of `programs` (see find_command), read one line at a time from a streamed log.
class CommandFinder {
public:
  explicit CommandFinder(std::initializer_list<std::string_view> programs);
  void read(const Line& line);
  /// The command, complete once its last continuation line is read; empty while none has been seen.
  [[nodiscard]] const std::optional<CommandLine>& command() const { return command_; }

private:
  std::vector<std::string_view> programs_;  // literals of the caller
  std::optional<CommandLine> command_;
  bool continuing_ = false;  // the last line read ended in '\'
};

/// The first command among `lines` that runs one of `programs` (a word or words of the line, "genai-perf profile",
/// "sglang.bench_serving"), with its continuation lines; empty when the file shows none.
std::optional<CommandLine> find_command(const std::vector<Line>& lines,
                                        std::initializer_list<std::string_view> programs);

}  // namespace dgx::logs
