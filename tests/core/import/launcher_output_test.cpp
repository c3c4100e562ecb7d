// launcher_output.cpp: launcher and logger prefixes off, one rank's lines kept, every line where it was.
#include "launcher_output.hpp"

#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <utility>

#include "dgx/log_import/log_text.hpp"

using namespace dgx::detail;
using namespace dgx::logs;

namespace {

// A log in memory and its launcher output (which reads it a pass at a time).
struct Log {
  explicit Log(std::string text) : input(std::move(text)), output(input) {}
  LogInput input;
  LauncherOutput output;
  [[nodiscard]] std::string text() const { return output.text(); }
  void keep_one_rank(const DataLine& is_data_line) { output.keep_one_rank(is_data_line); }
  /// The rank that printed line `number`, when its prefix named one.
  [[nodiscard]] std::optional<int> rank_of(int number) const {
    LauncherOutput::Cursor cursor = output.lines(RankFilter{});
    for (LauncherOutput::Line line; cursor.next(line);) {
      if (line.number == number) {
        return line.rank < 0 ? std::nullopt : std::optional<int>(line.rank);
      }
    }
    return std::nullopt;
  }
};

std::vector<std::string> lines_of(const Log& log) {
  std::vector<std::string> out;
  const std::string text = log.text();
  for (const Line& l : split_lines(text)) {
    out.emplace_back(l.text);
  }
  return out;
}

bool any_line(std::string_view line) { return !trim(line).empty(); }

bool step_line(std::string_view line) { return line.find("step:") != std::string_view::npos; }

}  // namespace

TEST_CASE("a file without launcher prefixes is kept byte for byte") {
  const std::string text = "a\r\n  12 34 float\n0:00:12 elapsed\nno line break at the end";
  const Log log(text);
  CHECK(log.text() == text);
}

TEST_CASE("mpirun --tag-output prefixes come off and name the rank") {
  const Log log("[1,0]<stdout>:# nThread 1\n[1,3]<stderr>:warning\n");
  CHECK(lines_of(log) == std::vector<std::string>{"# nThread 1", "warning"});
  CHECK(log.rank_of(1) == 0);
  CHECK(log.rank_of(2) == 3);
}

TEST_CASE("torchrun's rank prefixes come off, doubled ones too, with the ANSI colours") {
  const Log log("[rank0]:[titan] \x1b[31mstep:  1\x1b[39m\n[rank0]:[rank0]: Traceback\n[default2]:x\n");
  CHECK(lines_of(log) == std::vector<std::string>{"[titan] step:  1", " Traceback", "x"});
  CHECK(log.rank_of(3) == 2);
}

TEST_CASE("srun -l labels come off only when most lines carry one, and a table row is no label") {
  const Log srun(" 0: iteration 1\n12: iteration 1\n 0: 12:30:01 done\n");
  CHECK(lines_of(srun) == std::vector<std::string>{"iteration 1", "iteration 1", "12:30:01 done"});
  CHECK(srun.rank_of(2) == 12);
  const std::string table = "       65536          8192   float    16.57\n  12: a list item\n  131072  16384 float\n";
  CHECK(Log(table).text() == table);
}

TEST_CASE("AMD Primus' logger prefix comes off and shows the world size") {
  const Log log("[\x1b[32m20251114 14:01:41\x1b[0m][\x1b[36mrank-15/16\x1b[0m][\x1b[1mINFO \x1b[0m] "
                "\x1b[1m[--------trainer.py:2382] "
                ":  iteration        1/      50 |\x1b[0m\n");
  CHECK(lines_of(log) == std::vector<std::string>{" iteration        1/      50 |"});
  CHECK(log.rank_of(1) == 15);
  CHECK(log.output.world_size() == 16);
  CHECK(log.output.world_size_line() == 1);
}

TEST_CASE("leading timestamps come off, bracketed or not") {
  const Log log("[2025-11-24 07:20:26] iteration 1\n2025-10-25 22:40:37,992 - INFO - step: 1\n"
                "2025-11-24T07:20:26.5Z x\n");
  CHECK(lines_of(log) == std::vector<std::string>{"iteration 1", "- INFO - step: 1", "x"});
}

TEST_CASE("a paste quoted whole as a markdown blockquote is unquoted, and fences become empty lines") {
  const Log log("> ```\n> # nThread 1\n>\n\n> ```\n");
  CHECK(lines_of(log) == std::vector<std::string>{"", "# nThread 1", "", "", ""});
  const Log partly("> mpirun -np 16\n```\nrow\n```\n");
  CHECK(lines_of(partly) == std::vector<std::string>{"> mpirun -np 16", "", "row", ""});
}

TEST_CASE("of several ranks, the lowest and the lowest that prints most data lines are kept, lines in place") {
  Log log("[rank1]:step: 1\n[rank0]:config\n[rank0]:step: 1\n[rank1]:step: 2\n[rank0]:step: 2\n"
          "[rank1]:final step: 2\n");
  log.keep_one_rank(step_line);
  CHECK(lines_of(log) == std::vector<std::string>{"", "config", "step: 1", "", "step: 2", ""});
  // Megatron-LM: the arguments from rank 0, the iterations from the last pipeline rank.
  Log split(
      "[rank-0/4] step: arguments\n[rank-2/4] noise\n[rank-3/4] step: 1\n[rank-3/4] step: 2\n[rank-3/4] step: 3\n");
  split.keep_one_rank(step_line);
  CHECK(lines_of(split) == std::vector<std::string>{"step: arguments", "", "step: 1", "step: 2", "step: 3"});
  CHECK(split.output.data_ranks(8) == std::vector<int>{0, 3});  // the ranks that print data lines, lowest first
  CHECK(split.output.data_ranks(1) == std::vector<int>{0});
  Log alone("[rank0]:a\n[rank0]:b\n");
  alone.keep_one_rank(any_line);
  CHECK(lines_of(alone) == std::vector<std::string>{"a", "b"});
}
