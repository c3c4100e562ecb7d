#include "dgx/llm/serve_lengths.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <vector>

namespace dgx::llm {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t comma = line.find(','); comma != std::string_view::npos; comma = line.find(',', start)) {
    out.push_back(trim(line.substr(start, comma - start)));
    start = comma + 1;
  }
  out.push_back(trim(line.substr(start)));
  return out;
}

enum class Column : unsigned char { input, output, count, unknown };

Column column_of(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "input" || lower == "isl" || lower == "input_tokens") {
    return Column::input;
  }
  if (lower == "output" || lower == "osl" || lower == "output_tokens") {
    return Column::output;
  }
  if (lower == "count" || lower == "weight") {
    return Column::count;
  }
  return Column::unknown;
}

class Reader {
public:
  explicit Reader(std::string_view source) { table_.source = std::string(source); }

  [[nodiscard]] std::optional<Error> header(std::string_view line, int number) {
    const std::vector<std::string_view> names = split(line);
    for (const std::string_view name : names) {
      columns_.push_back(column_of(name));
      if (columns_.back() == Column::unknown) {
        return at(number,
                  "unknown column '" + std::string(name) + "' (the header names input,output or input,output,count)");
      }
    }
    const bool has_input = std::count(columns_.begin(), columns_.end(), Column::input) == 1;
    const bool has_output = std::count(columns_.begin(), columns_.end(), Column::output) == 1;
    if (!has_input || !has_output || std::count(columns_.begin(), columns_.end(), Column::count) > 1) {
      return at(number, "the header must name input and output once each (and count at most once), got '" +
                            std::string(line) + "'");
    }
    return std::nullopt;
  }

  [[nodiscard]] std::optional<Error> row(std::string_view line, int number) {
    const std::vector<std::string_view> cells = split(line);
    if (cells.size() != columns_.size()) {
      return at(number, "expected " + std::to_string(columns_.size()) + " comma-separated values, got " +
                            std::to_string(cells.size()) + " in '" + std::string(line) + "'");
    }
    RequestLengths r;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      long long value = 0;
      const auto [end, ec] = std::from_chars(cells[i].data(), cells[i].data() + cells[i].size(), value);
      if (ec != std::errc{} || end != cells[i].data() + cells[i].size()) {
        return at(number, "'" + std::string(cells[i]) + "' is not a whole number");
      }
      const char* what = columns_[i] == Column::input    ? "input length"
                         : columns_[i] == Column::output ? "output length"
                                                         : "count";
      if (value < 1 || value > 100'000'000) {
        return at(number, std::string(what) + " must be at least 1" + (columns_[i] == Column::count ? "" : " token") +
                              ", got " + std::string(cells[i]));
      }
      switch (columns_[i]) {
      case Column::input: r.isl = static_cast<int>(value); break;
      case Column::output: r.osl = static_cast<int>(value); break;
      default: r.weight = static_cast<double>(value); break;
      }
    }
    table_.rows.push_back(r);
    return std::nullopt;
  }

  [[nodiscard]] bool has_header() const { return !columns_.empty(); }
  LengthTable take() { return std::move(table_); }

private:
  [[nodiscard]] Error at(int line, const std::string& what) const {
    return Error{table_.source + ":" + std::to_string(line) + ": " + what};
  }

  LengthTable table_;
  std::vector<Column> columns_;
};

}  // namespace

Expected<LengthTable> parse_lengths(std::string_view text, std::string_view source) {
  Reader reader(source);
  int number = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line = trim(text.substr(start, end - start));
    start = end + 1;
    ++number;
    if (line.empty() || line.front() == '#') {
      continue;
    }
    const auto error = reader.has_header() ? reader.row(line, number) : reader.header(line, number);
    if (error) {
      return *error;
    }
  }
  LengthTable table = reader.take();
  if (table.rows.empty()) {
    return Error{table.source + ": no requests (a lengths file needs a header, input,output, and at least one row)"};
  }
  return table;
}

Expected<LengthTable> read_lengths_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Error{path + ": cannot open the lengths file"};
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_lengths(text.str(), path);
}

}  // namespace dgx::llm
