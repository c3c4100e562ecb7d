// format.hpp: an import request as the reader sees it, from a host that streams the lines (ABI 1.3) and from one
// that hands the whole text (ABI 1.2).
#include <dgx/sdk/format.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <string>
#include <vector>

using namespace dgx::sdk;

namespace {

std::vector<std::string> read_all(const ImportRequest& request, std::vector<int>* numbers = nullptr) {
  std::vector<std::string> lines;
  while (const auto line = request.next_line()) {
    lines.emplace_back(std::string(line->text) + (line->line_break ? "|" : ""));
    if (numbers != nullptr) {
      numbers->push_back(line->number);
    }
  }
  return lines;
}

// A host's stream of three lines, the second of another rank (skipped: numbers jump), the last without a break.
struct Stream {
  std::vector<std::pair<std::string, int>> lines{{"a\n", 1}, {"c\r\n", 3}, {"d", 4}};
  std::size_t at = 0;
  bool fail = false;

  static dgx_status next(void* ctx, const char** text, std::uint64_t* size, std::int32_t* number) {
    auto& self = *static_cast<Stream*>(ctx);
    if (self.fail) {
      return DGX_ERR_RUNTIME;
    }
    if (self.at == self.lines.size()) {
      *text = nullptr;
      return DGX_OK;
    }
    const auto& [line, n] = self.lines[self.at++];
    *text = line.data();
    *size = line.size();
    *number = n;
    return DGX_OK;
  }
};

}  // namespace

TEST_CASE("from a host of ABI 1.3 the reader takes the streamed lines, numbered as in the file, and the head") {
  Stream stream;
  const std::string head = "a\n\nc\r\n";
  dgx_import_request r{};
  r.struct_size = sizeof r;
  r.text = head.data();
  r.size = head.size();
  r.origin = "x.log";
  r.next_line = &Stream::next;
  r.lines_ctx = &stream;
  r.text_complete = 0;
  const ImportRequest request = detail::to_request(r);
  CHECK(request.text == head);
  CHECK_FALSE(request.text_complete);
  std::vector<int> numbers;
  CHECK(read_all(request, &numbers) == std::vector<std::string>{"a|", "c\r|", "d"});
  CHECK(numbers == std::vector<int>{1, 3, 4});
  CHECK_FALSE(request.next_line());  // past the last it stays there
}

TEST_CASE("a host that cannot read further ends the read with an error naming the file") {
  Stream stream;
  stream.fail = true;
  dgx_import_request r{};
  r.struct_size = sizeof r;
  r.origin = "x.log";
  r.next_line = &Stream::next;
  r.lines_ctx = &stream;
  const ImportRequest request = detail::to_request(r);
  CHECK_THROWS_WITH_AS(request.next_line(), "the host could not read x.log further", Error);
}

TEST_CASE("from a host of ABI 1.2 (a request that ends before next_line) the lines are the text's") {
  const std::string text = "a\n\nc\r\nd";
  dgx_import_request r{};
  r.struct_size = offsetof(dgx_import_request, next_line);
  r.text = text.data();
  r.size = text.size();
  r.next_line = &Stream::next;  // beyond its struct_size: never read
  const ImportRequest request = detail::to_request(r);
  CHECK(request.text_complete);
  std::vector<int> numbers;
  CHECK(read_all(request, &numbers) == std::vector<std::string>{"a|", "|", "c\r|", "d"});
  CHECK(numbers == std::vector<int>{1, 2, 3, 4});
}
