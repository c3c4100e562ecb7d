// log_input.cpp: a log's raw lines, a block of the file at a time, the same lines on every pass.
#include "log_input.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "temp_dir.hpp"

using namespace dgx;
using namespace dgx::detail;

namespace {

// Every line of a pass, its line break shown as '|'.
std::vector<std::string> pass(LogInput& input) {
  input.rewind();
  std::vector<std::string> lines;
  std::string_view line;
  bool line_break = true;
  while (input.next(line, line_break)) {
    lines.emplace_back(std::string(line) + (line_break ? "|" : ""));
  }
  return lines;
}

}  // namespace

TEST_CASE("a file's lines come a block at a time, a line longer than a block whole, the last without its break") {
  const testing::TempDir dir;
  std::vector<std::string> expected;
  std::string text;
  for (int i = 0; i < 40000; ++i) {  // lines of every length cross the 1 MiB blocks' edges
    expected.push_back(std::string(static_cast<std::size_t>(i % 97), static_cast<char>('a' + i % 26)) + "\r|");
    text += expected.back().substr(0, expected.back().size() - 1) + "\n";
  }
  expected.push_back(std::string(std::size_t{3} << 20, 'L') + "|");  // three blocks long
  text += std::string(std::size_t{3} << 20, 'L') + "\n\n";
  expected.emplace_back("|");
  expected.emplace_back("cut");
  text += "cut";
  const std::string path = dir.write("x.log", text);
  auto input = LogInput::open(path, text.size(), "file to import");
  REQUIRE(input);
  const std::vector<std::string> first = pass(*input);
  CHECK(first.size() == expected.size());
  CHECK(first == expected);
  CHECK(pass(*input) == expected);  // a second pass reads the same lines
  CHECK(input->error().empty());
  LogInput memory(text);
  CHECK(pass(memory) == expected);
}

TEST_CASE("what is no regular file, or too large, is refused at once, naming the file") {
  const testing::TempDir dir;
  const std::string fifo = (dir.path() / "fifo").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto from_fifo = LogInput::open(fifo, 1000, "file to import");
  REQUIRE_FALSE(from_fifo);
  CHECK(from_fifo.error().message == "file to import " + fifo + ": is a FIFO, not a regular file");
  CHECK(from_fifo.error().code == ExitCode::usage);
  auto from_folder = LogInput::open(dir.path().string(), 1000, "file to import");
  REQUIRE_FALSE(from_folder);
  CHECK(from_folder.error().message.find("is a directory, not a regular file") != std::string::npos);
  const std::string big = dir.write("big.log", std::string(2000, 'x'));
  auto too_big = LogInput::open(big, 1000, "file to import");
  REQUIRE_FALSE(too_big);
  CHECK(too_big.error().message == "file to import " + big + ": is 2000 bytes; dgxhost reads at most 1000 bytes");
  CHECK_FALSE(LogInput::open((dir.path() / "none").string(), 1000, "file to import"));
}

TEST_CASE("a file cut shorter while it is read ends the pass with the reason, not with a silently shorter log") {
  const testing::TempDir dir;
  const std::string path = dir.write("x.log", std::string(std::size_t{3} << 20, 'x') + "\nlast\n");
  auto input = LogInput::open(path, std::size_t{8} << 20, "file to import");
  REQUIRE(input);
  REQUIRE(::truncate(path.c_str(), 1 << 20) == 0);
  std::string_view line;
  bool line_break = true;
  CHECK_FALSE(input->next(line, line_break));
  CHECK(input->error().find("shrank while it was read") == 0);
  // A log that grows while it is read is read as it was when opened.
  const std::string growing = dir.write("grow.log", "a\nb\n");
  auto log = LogInput::open(growing, 1000, "file to import");
  REQUIRE(log);
  dir.write("grow.log", "a\nb\nc\n");  // rewritten longer
  CHECK(pass(*log) == std::vector<std::string>{"a|", "b|"});
}
