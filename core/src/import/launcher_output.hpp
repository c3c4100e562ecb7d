// Private to import/: a log as the launcher left it, turned back into the text the tool printed. mpirun
// --tag-output (`[1,0]<stdout>:`), srun -l (`12: `), torchrun (`[rank0]:`), AMD Primus
// (`[20251114 13:54:06][rank-15/16][INFO ] [----trainer.py:2382] :`), leading timestamps, ANSI colours and a paste
// quoted as markdown (`> ` lines, ``` fences) are taken off each line before the format is told; when several ranks
// print, one rank's lines are kept so that a parser sees each step once.
//
// The log is never held whole: a first pass over the input learns its shape (is it text, do most lines carry srun's
// label or a blockquote, which world size do the prefixes show), and every later pass cleans each line as it reads
// it. Every line keeps its number in the file (another rank's line is skipped, or empty in text()), so every error
// message, row `file` field and line_of entry names a line of the file the user gave.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "log_input.hpp"

namespace dgx::detail {

/// Whether one line is a data line of the format the file was told to be (the format's probe, on the line).
using DataLine = std::function<bool(std::string_view line)>;

/// Which ranks' lines a pass keeps; a line that names no rank always is.
struct RankFilter {
  std::vector<int> ranks;  // empty: every rank's
  [[nodiscard]] bool keeps(int rank) const;
};

class LauncherOutput {
public:
  /// Surveys `input` (two passes), which must outlive this and is read by one pass at a time.
  explicit LauncherOutput(LogInput& input);

  /// The first line that is no text: its number and what gives it away ("a NUL byte", "invalid UTF-8").
  struct NonText {
    int line = 0;
    const char* what = "";
  };
  [[nodiscard]] const std::optional<NonText>& non_text() const { return non_text_; }
  /// Whether the file holds nothing but white space.
  [[nodiscard]] bool blank() const { return blank_; }

  /// One line as the tool printed it.
  struct Line {
    std::string_view text;   // valid until the next line is read
    int number = 0;          // 1-based, in the file
    int rank = -1;           // the rank its prefix named; -1 when none
    bool line_break = true;  // false for a last line without one
    int world_size = 0;      // the world size its prefix shows (rank-15/16); 0 when none
  };

  /// A pass over the lines of the ranks a filter keeps, from the first, each cleaned as it is read.
  class Cursor {
  public:
    /// The next kept line; false past the last, or when the file could not be read further (failed()).
    bool next(Line& line);
    [[nodiscard]] bool failed() const { return !log_.input_.error().empty(); }

  private:
    friend class LauncherOutput;
    Cursor(const LauncherOutput& log, RankFilter filter);
    const LauncherOutput& log_;
    RankFilter filter_;
    int number_ = 0;
    std::string scratch_;  // a line without its ANSI colours
  };
  [[nodiscard]] Cursor lines(RankFilter filter) const { return Cursor(*this, std::move(filter)); }
  /// The lines of the ranks kept (keep_one_rank; every rank's until then).
  [[nodiscard]] Cursor lines() const { return lines(kept_); }

  /// The cleaned text of the first lines `filter` keeps, one line per line of the file (another rank's line left
  /// empty): at most `max_bytes` of whole lines, `complete` saying whether that is all of the file.
  [[nodiscard]] std::string text(std::size_t max_bytes, bool& complete, const RankFilter& filter) const;
  /// All of the kept ranks' text (the tests; a plugin of ABI 1.2, which takes the file whole).
  [[nodiscard]] std::string text() const;

  /// When several ranks print, keeps the lines without a rank, the lowest rank's (the start-up and configuration
  /// lines) and those of the lowest rank that prints most of the format's data lines (`is_data_line` on one line):
  /// Megatron-LM logs its iterations from the last pipeline rank, torchtitan from every rank alike.
  void keep_one_rank(const DataLine& is_data_line);
  [[nodiscard]] const RankFilter& kept() const { return kept_; }

  /// The ranks that print the format's data lines, lowest first, as keep_one_rank counted them (one pass for both);
  /// at most `limit`.
  [[nodiscard]] std::vector<int> data_ranks(std::size_t limit) const {
    return {data_ranks_.begin(),
            data_ranks_.begin() + static_cast<std::ptrdiff_t>(std::min(limit, data_ranks_.size()))};
  }

  /// Why the last pass stopped before the end of the file (an I/O error, the file shrank); empty when it did not.
  [[nodiscard]] const std::string& read_error() const { return input_.error(); }

  /// The world size a prefix shows (`rank-63/64`), and its line, for a run whose own lines do not print it.
  [[nodiscard]] std::optional<int> world_size() const { return world_size_; }
  [[nodiscard]] int world_size_line() const { return world_size_line_; }

private:
  LogInput& input_;
  bool blockquote_ = false;  // every non-empty line is quoted: a paste as a markdown blockquote
  bool srun_ = false;        // most lines carry srun -l's label
  int line_count_ = 0;
  bool ends_with_break_ = true;
  bool blank_ = true;
  std::optional<NonText> non_text_;
  RankFilter kept_;
  std::vector<int> data_ranks_;  // keep_one_rank's count
  std::optional<int> world_size_;
  int world_size_line_ = 0;
};

}  // namespace dgx::detail
