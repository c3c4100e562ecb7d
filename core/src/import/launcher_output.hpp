// Private to import/: a log as the launcher left it, turned back into the text the tool printed. mpirun
// --tag-output (`[1,0]<stdout>:`), srun -l (`12: `), torchrun (`[rank0]:`), AMD Primus
// (`[20251114 13:54:06][rank-15/16][INFO ] [----trainer.py:2382] :`), leading timestamps, ANSI colours and a paste
// quoted as markdown (`> ` lines, ``` fences) are taken off each line before the format is told; when several ranks
// print, one rank's lines are kept so that a parser sees each step once.
//
// The design keeps the parsers unchanged: the cleaned text has exactly one line per line of the original file (a
// line dropped, another rank's or a fence, is left empty), so split_lines numbers the cleaned text as the original
// file, and every error message, row `file` field and line_of entry names a line of the file the user gave.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dgx::detail {

/// Whether one line is a data line of the format the file was told to be (the format's probe, on the line).
using DataLine = std::function<bool(std::string_view line)>;

class LauncherOutput {
public:
  /// Takes the prefixes off every line of `text`, which it keeps (one copy of a large log, not several: the lines are
  /// spans of it); a file without any is kept as it is.
  explicit LauncherOutput(std::string text);

  /// The cleaned text, one line per original line.
  [[nodiscard]] std::string_view text() const { return text_; }

  /// The rank that printed line `number` (1-based) when its prefix named one.
  [[nodiscard]] std::optional<int> rank_of(int number) const;

  /// When several ranks print, keeps the lines without a rank, the lowest rank's (the start-up and configuration
  /// lines) and those of the lowest rank that prints most of the format's data lines (`is_data_line` on one line):
  /// Megatron-LM logs its iterations from the last pipeline rank, torchtitan from every rank alike.
  void keep_one_rank(const DataLine& is_data_line);

  /// The ranks that print the format's data lines (`is_data_line` on one line), lowest first; at most `limit`.
  [[nodiscard]] std::vector<int> data_ranks(const DataLine& is_data_line, std::size_t limit) const;

  /// The text as `rank` alone printed it (other ranks' lines left empty), for telling a straggler: built one rank at
  /// a time, so that a log of many ranks costs one more copy, not one per rank.
  [[nodiscard]] std::string rank_text(int rank) const;

  /// The world size a prefix shows (`rank-63/64`), and its line, for a run whose own lines do not print it.
  [[nodiscard]] std::optional<int> world_size() const { return world_size_; }
  [[nodiscard]] int world_size_line() const { return world_size_line_; }

private:
  struct Span {
    std::size_t begin = 0;
    std::size_t size = 0;
  };
  [[nodiscard]] std::string_view line(std::size_t i) const {
    return std::string_view(text_).substr(lines_[i].begin, lines_[i].size);
  }
  /// text_ rebuilt from the lines' current spans (`keep` says which keep their text), one line break each as before.
  void rebuild(const std::vector<bool>& keep);

  std::string text_;
  bool ends_with_break_ = false;
  std::vector<Span> lines_;  // each line of text_, without its line break
  std::vector<int> ranks_;   // per line, -1 when its prefix names none
  std::optional<int> world_size_;
  int world_size_line_ = 0;
};

}  // namespace dgx::detail
