// Wrapping to the terminal (wrap.cpp) and the reporters that wrap: the notes of the terminal table, --describe's
// help column (tests/integration/dgxhost_cli_test.cpp runs it with COLUMNS).
#include "dgx/core/report/wrap.hpp"

#include <doctest/doctest.h>

#include <cstdlib>

#include "dgx/core/report/reporters.hpp"
#include "sample_report.hpp"

using namespace dgx;

TEST_CASE("words wrap at spaces to the width, a path longer than it is cut after a slash") {
  CHECK(wrap_words("one two three", 0) == std::vector<std::string>{"one two three"});
  CHECK(wrap_words("one two three", 7) == std::vector<std::string>{"one two", "three"});
  CHECK(wrap_words("one two three", 100) == std::vector<std::string>{"one two three"});
  const auto cut = wrap_words("see /a/long/path/to/file.toml:3", 12);
  CHECK(cut.front() == "see");
  for (const std::string& line : cut) {
    CHECK(line.size() <= 12);
  }
  CHECK(cut[1] == "/a/long/");
}

TEST_CASE("COLUMNS sets the width stdout wraps to, 0 turns wrapping off") {
  setenv("COLUMNS", "90", 1);
  CHECK(stdout_width() == 90);
  setenv("COLUMNS", "10", 1);
  CHECK(stdout_width() == 40);  // narrower would make a help column unreadable
  setenv("COLUMNS", "0", 1);
  CHECK(stdout_width() == 0);
  unsetenv("COLUMNS");
}

TEST_CASE("a long note line wraps to the width with a hanging indent, and not at all without one") {
  Report report = dgx::testing::sample_report();
  report.notes.push_back(
      Note{.before = false,
           .title = "Long",
           .text = std::string(30, 'a') + " " + std::string(30, 'b') + " " + std::string(30, 'c') + "\nshort"});
  const std::string wrapped = render_table(report, 70);
  CHECK(wrapped.find("Long:\n  " + std::string(30, 'a') + " " + std::string(30, 'b') + "\n    " + std::string(30, 'c') +
                     "\n  short") != std::string::npos);
  const std::string plain = render_table(report);
  CHECK(plain.find("Long:\n  " + std::string(30, 'a') + " " + std::string(30, 'b') + " " + std::string(30, 'c') +
                   "\n  short") != std::string::npos);
}
