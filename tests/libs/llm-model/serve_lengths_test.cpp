#include "dgx/llm/serve_lengths.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace dgx::llm;

namespace {

std::string lengths_error_of(std::string_view text) {
  const auto table = parse_lengths(text, "chats.csv");
  return table ? "" : table.error().message;
}

}  // namespace

TEST_CASE("a trace has one request per row, a histogram a count per length pair, comments and blanks are skipped") {
  const auto trace = parse_lengths("# my log\ninput,output\n120, 300\n\n2048,64\n", "trace.csv");
  REQUIRE(trace.has_value());
  CHECK(trace->source == "trace.csv");
  REQUIRE(trace->rows.size() == 2);
  CHECK(trace->rows[0].isl == 120);
  CHECK(trace->rows[1].osl == 64);
  CHECK(trace->mean_isl() == doctest::Approx(1084));
  const auto histogram = parse_lengths("isl,osl,count\r\n100,50,3\r\n500,250,1\r\n", "hist.csv");
  REQUIRE(histogram.has_value());
  CHECK(histogram->rows[0].weight == 3);
  CHECK(histogram->mean_osl() == doctest::Approx(100));
  CHECK(histogram->max_total() == 750);
}

TEST_CASE("a bad lengths file names the file, the line and what is wrong") {
  CHECK(lengths_error_of("") ==
        "chats.csv: no requests (a lengths file needs a header, input,output, and at least one row)");
  CHECK(lengths_error_of("input,output\n# nothing\n").find("chats.csv: no requests") == 0);
  CHECK(lengths_error_of("input,output\n100,-5\n") == "chats.csv:2: output length must be at least 1 token, got -5");
  CHECK(lengths_error_of("input,output\n0,5\n") == "chats.csv:2: input length must be at least 1 token, got 0");
  CHECK(lengths_error_of("input,output\n100,5,7\n") ==
        "chats.csv:2: expected 2 comma-separated values, got 3 in '100,5,7'");
  CHECK(lengths_error_of("input,output\n100,abc\n") == "chats.csv:2: 'abc' is not a whole number");
  CHECK(lengths_error_of("input,output\n1.5,4\n") == "chats.csv:2: '1.5' is not a whole number");
  CHECK(lengths_error_of("prompt,answer\n1,4\n").find("chats.csv:1: unknown column 'prompt'") == 0);
  CHECK(lengths_error_of("input,input\n1,4\n").find("chats.csv:1: the header must name input and output once each") ==
        0);
  CHECK(lengths_error_of("input,output,count\n10,4,0\n") == "chats.csv:2: count must be at least 1, got 0");
}

TEST_CASE("reading a lengths file that does not exist says so") {
  const auto table = read_lengths_file("/nonexistent/lengths.csv");
  REQUIRE_FALSE(table.has_value());
  CHECK(table.error().message == "/nonexistent/lengths.csv: cannot open the lengths file");
}

TEST_CASE("the shipped example file reads: a ShareGPT-like histogram of short prompts and longer answers") {
  const auto table = read_lengths_file(DGX_SOURCE_DIR "/configs/lengths/sharegpt-like.csv");
  REQUIRE_MESSAGE(table.has_value(), (table ? "" : table.error().message));
  CHECK(table->rows.size() >= 10);
  CHECK(table->mean_isl() > 100);
  CHECK(table->mean_isl() < 600);
  CHECK(table->mean_osl() > table->mean_isl() / 2);
  CHECK(table->max_total() <= 8192);
}
