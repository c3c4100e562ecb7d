// The text toolkit shared by the host and the plugins.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>

#include <dgx/sdk/text.hpp>

#include "process.hpp"
#include "temp_dir.hpp"

using namespace dgx::sdk;

TEST_CASE("edit distance counts single-character edits, and a swap as one when asked") {
  CHECK(text::edit_distance("spin", "spin") == 0);
  CHECK(text::edit_distance("spin", "spni") == 2);
  CHECK(text::edit_distance("spin", "spni", text::Swaps::one_edit) == 1);
  CHECK(text::edit_distance("", "abc") == 3);
  CHECK(text::edit_distance("kitten", "sitting") == 3);
  CHECK(text::edit_distance("kitten", "sitting", text::Swaps::one_edit) == 3);
  CHECK(edit_distance("ab", "ba") == 2);  // the name plugins used before text:: existed
}

TEST_CASE("close matches prefer small distances and substrings") {
  const std::vector<std::string> names{"llama70b", "llama8b", "llama405b", "spin", "gemm"};
  CHECK(text::close_matches("lama70b", names).front() == "llama70b");
  CHECK(text::close_matches("spni", names) == std::vector<std::string>{"spin"});
  CHECK(text::close_matches("xyzzy", names).empty());
  CHECK(text::close_matches("spin", names).empty());          // the name itself is no suggestion
  CHECK(text::close_matches("llama", names, 5).size() == 3);  // a prefix of several
  CHECK(text::close_matches("llama", names, 2).size() == 2);
}

TEST_CASE("close matches ignore case and punctuation, so abbreviated catalog names find their entry") {
  const std::vector<std::string> models = {"llama2-7b", "llama3.1-70b", "llama3.1-8b", "gpt3-175b"};
  const auto matches = text::close_matches("llama70b", models);
  CHECK(std::find(matches.begin(), matches.end(), "llama3.1-70b") != matches.end());
  CHECK(std::find(matches.begin(), matches.end(), "gpt3-175b") == matches.end());
  CHECK(text::close_matches("GPT3175B", models) == std::vector<std::string>{"gpt3-175b"});
  const std::vector<std::string> systems = {"a100-sxm-80gb", "b200", "h100-sxm", "h200-sxm"};
  CHECK(text::close_matches("h100", systems) == std::vector<std::string>{"h100-sxm"});  // b200 is two typos away
  CHECK(text::close_matches("zzz", systems).empty());
  CHECK(text::close_matches("", systems).empty());
  CHECK(text::close_matches("--plugn", {"--plugin", "--plugin-dir", "--list"}) == std::vector<std::string>{"--plugin"});
}

TEST_CASE("close matches at the same distance rank the longer common prefix first") {
  // "llama3-8b" is one edit from llama3.1-8b and from llama2-8b: the release the user typed (3) ranks first.
  const std::vector<std::string> models = {"llama2-8b", "llama3.1-8b"};
  CHECK(text::close_matches("llama3-8b", models).front() == "llama3.1-8b");
  CHECK(text::close_matches("llama2.1-8b", models).front() == "llama2-8b");
}

TEST_CASE("did_you_mean lists candidates in readable English") {
  CHECK(text::did_you_mean({}).empty());
  CHECK(text::did_you_mean({"a"}) == "did you mean 'a'?");
  CHECK(text::did_you_mean({"a", "b"}) == "did you mean 'a' or 'b'?");
  CHECK(text::did_you_mean({"a", "b", "c"}) == "did you mean 'a', 'b' or 'c'?");
}

TEST_CASE("split, join, trim and starts_with") {
  CHECK(text::split("a,b,,c", ',') == std::vector<std::string>{"a", "b", "", "c"});
  CHECK(text::join({"a", "b"}, ", ") == "a, b");
  CHECK(text::join({}, ", ").empty());
  CHECK(text::trim("  x y \n") == "x y");
  CHECK(text::starts_with("runner.batch", "runner."));
  CHECK_FALSE(text::starts_with("run", "runner."));
}

TEST_CASE("numbers are formatted with significant digits") {
  CHECK(text::format_number(2.0013, 4) == "2.001");
  CHECK(text::format_number(1234.6, 4) == "1235");
  CHECK(text::format_number(0.00123456, 3) == "0.00123");
  CHECK(text::format_number(0, 4) == "0");
  CHECK(text::format_number(1e20, 3) == "1.00e+20");
}

TEST_CASE("fixed decimals, thousands separators and GiB, as notes quote them") {
  CHECK(text::fixed(3.14159, 2) == "3.14");
  CHECK(text::fixed(2.5, 0) == "2");  // printf's rounding: half to even
  CHECK(text::fixed(-0.05, 1) == "-0.1");
  CHECK(text::grouped(1234567) == "1,234,567");
  CHECK(text::grouped(-1000) == "-1,000");
  CHECK(text::grouped(0) == "0");
  CHECK(text::gib(80.0 * 1024 * 1024 * 1024) == "80.0 GiB");
  CHECK(text::gib_number(8.06 * 1024 * 1024 * 1024) == "8.1");
}

TEST_CASE("dollars and counts keep three significant digits in a readable unit") {
  CHECK(text::usd(9999) == "$9999");
  CHECK(text::usd(99.5) == "$99.50");
  CHECK(text::usd(-12345) == "$-12.35k");  // a negative scaled value keeps two decimals
  CHECK(text::usd(999.9e6) == "$1000M");
  CHECK(text::si_count(999) == "999");
  CHECK(text::si_count(1500) == "1.50k");
  CHECK(text::si_count(850e6) == "850M");
  CHECK(text::si_count(-2e9) == "-2.00B");
}

TEST_CASE("durations round by fixed decimals for notes, or by significant digits as the host's check does") {
  CHECK(text::duration(0.0052) == "5.2 ms");
  CHECK(text::duration(0.85) == "850 ms");
  CHECK(text::duration(0.00004) == "0.0 ms");
  CHECK(text::duration(2.5) == "2.50 s");
  CHECK(text::duration(123.45) == "123.5 s");
  CHECK(text::duration(0.0052, text::Rounding::significant) == "5.20 ms");
  CHECK(text::duration(0.00004567, text::Rounding::significant) == "45.7 us");
  CHECK(text::duration(2.5, text::Rounding::significant) == "2.50 s");
  CHECK(text::duration(123.45, text::Rounding::significant) == "123 s");
}

TEST_CASE("join separates with a comma by default, and close matches can count a swap as two edits") {
  CHECK(text::join({"a", "b", "c"}) == "a, b, c");
  const std::vector<std::string> names{"spin", "gemm"};
  CHECK(text::close_matches("psin", names) == std::vector<std::string>{"spin"});  // one swap: one edit
  CHECK(text::close_matches("psin", names, 3, text::Swaps::two_edits).empty());   // two edits: above the threshold
}

TEST_CASE("display width counts code points, so signs and units such as ± and µ take one column") {
  CHECK(text::display_width("") == 0);
  CHECK(text::display_width("band") == 4);
  CHECK(text::display_width("±8.8%") == 5);
  CHECK(text::display_width("12 µs") == 5);
  CHECK(text::display_width("8192³") == 5);
}

TEST_CASE("a shell word is left plain when no shell reads anything into it, else single-quoted with ' escaped") {
  CHECK(text::shell_quote("plain-word_1.0") == "plain-word_1.0");
  CHECK(text::shell_quote("a b") == "'a b'");
  CHECK(text::shell_quote("it's") == "'it'\\''s'");
  CHECK(text::shell_quote("") == "''");
  CHECK(text::shell_quote("x'$(touch PWNED)'") == "'x'\\''$(touch PWNED)'\\'''");
  CHECK(text::shell_quote("$HOME `id` \"q\" \\ *") == "'$HOME `id` \"q\" \\ *'");
}

TEST_CASE("a command's first word holding '=' is quoted, so that the shell runs it instead of assigning it") {
  CHECK(text::shell_quote_command("X=y") == "'X=y'");
  CHECK(text::shell_quote_command("/opt/a=b/dgxhost") == "'/opt/a=b/dgxhost'");
  CHECK(text::shell_quote_command("it's=") == "'it'\\''s='");
  CHECK(text::shell_quote_command("/usr/bin/dgxhost") == "/usr/bin/dgxhost");
  CHECK(text::shell_quote("--set=x") == "--set=x");  // arguments stay readable: no shell assigns them
  CHECK(text::shell_quote("NCCL_DEBUG=INFO") == "NCCL_DEBUG=INFO");

  // A program named X=y on PATH: quoted, sh runs it; plain, sh assigns X and runs nothing.
  const dgx::testing::TempDir dir;
  const auto program = dir.write("X=y", "#!/bin/sh\necho ran\n");
  REQUIRE(::chmod(program.c_str(), 0755) == 0);
  const char* path = std::getenv("PATH");
  const std::map<std::string, std::string> env{{"PATH", dir.path().string() + ":" + (path != nullptr ? path : "")}};
  const auto sh = [&](const std::string& command) {
    return dgx::testing::run_process("/bin/sh", {"-c", command + "; echo \"status $? X=${X-unset}\""}, env).out;
  };
  CHECK(sh(text::shell_quote_command("X=y")) == "ran\nstatus 0 X=unset\n");
  CHECK(sh("X=y") == "status 0 X=y\n");  // what the word left plain did
}

TEST_CASE("a value for one line of a script is refused with a NUL, a control character, any line break or bad "
          "UTF-8") {
  CHECK(text::one_line_problem("nvidia/Llama-3.1-8B it's µ ± 3³").empty());
  CHECK(text::one_line_problem("a\nb") == "a line break (U+000A)");
  CHECK(text::one_line_problem("a\rb") == "a line break (U+000D)");
  CHECK(text::one_line_problem(std::string("a\0b", 3)) == "a control character (U+0000)");
  CHECK(text::one_line_problem("a\tb") == "a control character (U+0009)");
  CHECK(text::one_line_problem("a\x7f") == "a control character (U+007F)");
  CHECK(text::one_line_problem("a\xc2\x85z") == "a line break (U+0085)");
  CHECK(text::one_line_problem("a\xc2\x9bz") == "a control character (U+009B)");
  CHECK(text::one_line_problem("a\xe2\x80\xa8z") == "a line break (U+2028)");
  CHECK(text::one_line_problem("a\xe2\x80\xa9z") == "a line break (U+2029)");
  CHECK(text::one_line_problem("ab\xff") == "invalid UTF-8 at byte 2");
  CHECK(text::one_line_problem("\xc0\xaf") == "invalid UTF-8 at byte 0");      // an overlong '/'
  CHECK(text::one_line_problem("\xed\xa0\x80") == "invalid UTF-8 at byte 0");  // a surrogate
  CHECK(text::utf8_sequence_length("\xf0\x9f\x98\x80") == 4);
  CHECK(text::utf8_sequence_length("\xf4\x90\x80\x80") == 0);  // above U+10FFFF
  CHECK(text::utf8_sequence_length("") == 0);
}
