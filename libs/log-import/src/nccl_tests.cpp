// nccl-tests' output (src/common.cu), and rccl-tests' (the same program for ROCm): a header that says the run's
// shape,
//   # nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 ...
//   rccl-tests: Version develop:a7809b3
//   #  Rank  0 Group  0 Pid  12345 on   node-01 device  0 [0x1b] NVIDIA H100 80GB HBM3
// then one line per size with an out-of-place and an in-place half, under a header naming the columns,
//   #                                                  out-of-place                       in-place
//   #       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw
//   #wrong
//           1024           256     float     sum      -1    12.34    0.08    0.15      0    12.10    0.08    0.15 0
// and a footer, `# Avg bus bandwidth    : 123.45`. World size: the ranks listed; the GPU: their device name.
//
// The columns are read from that header: versions before 2.x print no redop/root (11 or 12 columns, `error`
// instead of `#wrong`), newer rccl-tests add columns, and forks print the in-place half first. Without a header (a
// pasted excerpt) the row's width says which of the known layouts it is. Only the first table is read: a file that
// goes on (the next test, the next node count of a summary) says so in a note.
#include <algorithm>
#include <set>
#include <sstream>

#include "dgx/log_import/log_text.hpp"
#include "parsed_run.hpp"

namespace dgx::logs {

namespace {

constexpr std::size_t kNone = std::string::npos;

std::vector<std::string> tokens(std::string_view line) {
  std::istringstream in{std::string(line)};
  std::vector<std::string> out;
  for (std::string t; in >> t;) {
    out.push_back(t);
  }
  return out;
}

// A line's text without the '#' nccl-tests starts its header lines with (pasted logs sometimes lose it).
std::string_view uncommented(std::string_view s) {
  s = trim(s);
  return trim(s.substr(!s.empty() && s.front() == '#' ? 1 : 0));
}

// Which column is which.
struct Layout {
  struct Half {
    std::size_t time = 0;  // then algbw, busbw and the check column (#wrong or error)
    std::string placement;
  };
  std::size_t type = kNone;
  std::size_t redop = kNone;
  std::vector<Half> halves;
  std::size_t width = 0;  // the columns of a whole row

  // A row may stop after its first half where the tool printed only one placement.
  [[nodiscard]] bool fits(std::size_t n) const {
    return n == width || (halves.size() > 1 && n == halves[1].time && halves.size() == 2);
  }
};

// "# size count type redop root time algbw busbw #wrong time algbw busbw #wrong", with the placements in the order
// of the line above it ("out-of-place ... in-place").
std::optional<Layout> header_layout(std::string_view header, std::string_view above) {
  const std::vector<std::string> t = tokens(uncommented(header));
  Layout layout;
  std::vector<std::string> order = {"out-of-place", "in-place"};
  const std::size_t in_place = above.find("in-place");
  const std::size_t out_of_place = above.find("out-of-place");
  if (in_place != std::string_view::npos && (out_of_place == std::string_view::npos || in_place < out_of_place)) {
    std::swap(order[0], order[1]);
  }
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i] == "type") {
      layout.type = i;
    } else if (t[i] == "redop" || t[i] == "op") {
      layout.redop = i;
    } else if (t[i] == "time" && i + 2 < t.size() && t[i + 1] == "algbw" && t[i + 2] == "busbw") {
      layout.halves.push_back({i, layout.halves.size() < order.size() ? order[layout.halves.size()] : ""});
    }
  }
  layout.width = t.size();
  if (layout.halves.empty() || layout.halves.front().time < 2) {
    return std::nullopt;
  }
  return layout;
}

// Without a header: size count [type [redop [root]]] and two halves of four columns.
std::optional<Layout> row_layout(const std::vector<std::string>& t) {
  if (t.size() < 10 || t.size() > 13) {
    return std::nullopt;
  }
  Layout layout;
  const std::size_t meta = t.size() - 8;
  layout.type = meta > 2 ? 2 : kNone;
  layout.redop = meta > 3 && !parse_number(t[3]) ? 3 : kNone;
  layout.halves = {{meta, "out-of-place"}, {meta + 4, "in-place"}};
  layout.width = t.size();
  return layout;
}

bool is_row(const std::vector<std::string>& t) { return t.size() >= 2 && parse_number(t[0]) && parse_number(t[1]); }

// One placement's columns; nullopt when nccl-tests printed N/A (no in-place variant) or the half is absent.
std::optional<CollectiveLine> placement(const std::vector<std::string>& t, const Layout& layout,
                                        const Layout::Half& half) {
  if (half.time + 2 >= t.size()) {
    return std::nullopt;
  }
  const auto time = parse_number(t[half.time]);
  const auto algbw = parse_number(t[half.time + 1]);
  const auto busbw = parse_number(t[half.time + 2]);
  if (!time || !algbw || !busbw) {
    return std::nullopt;
  }
  CollectiveLine l;
  l.size_bytes = *parse_number(t[0]);
  l.count = *parse_number(t[1]);
  l.type = layout.type != kNone ? t[layout.type] : "";
  l.redop = layout.redop != kNone ? t[layout.redop] : "";
  l.placement = half.placement;
  l.time_us = *time;
  l.algbw = *algbw;
  l.busbw = *busbw;
  l.wrong = half.time + 3 < t.size() ? parse_number(t[half.time + 3]) : std::nullopt;
  return l;
}

// What the lines around the table say.
struct Header {
  int column_header = 0;  // the line naming the columns
  std::optional<Layout> layout;
  std::set<int> ranks;  // the ranks listed (two processes each thinking it is rank 0 list one rank)
  std::string iterations = "-n iterations after -w warm-up iterations";
  int footer = 0;
  std::string previous;  // the line before, for the placements above the column names
};

void read_nthread(std::string_view s, Header& h) {
  const auto warmup = number_after(s, "warmup iters:");
  const std::size_t after_warmup = s.find("warmup iters:");
  const auto iters =
      after_warmup == std::string_view::npos ? std::nullopt : number_after(s.substr(after_warmup + 13), "iters:");
  if (iters && warmup) {
    h.iterations = std::to_string(static_cast<long long>(*iters)) + " iterations after " +
                   std::to_string(static_cast<long long>(*warmup)) + " warm-up iterations";
  }
}

// "Rank  0 Group  0 Pid  12345 on node-01 device  0 [0x1b] NVIDIA H100 80GB HBM3" (older: no Group column; some
// builds print no device name after the bus id).
void read_rank(std::string_view s, Header& h, ParsedRun& run) {
  const auto rank = number_after(s, "Rank");
  if (!rank || *rank < 0 || *rank > 1e7) {  // no job has ten million ranks: a corrupted line
    return;
  }
  h.ranks.insert(static_cast<int>(*rank));
  const std::size_t bracket = s.find("] ");
  if (run.printed_device.empty() && bracket != std::string_view::npos) {
    run.printed_device = std::string(trim(s.substr(bracket + 2)));
  }
}

// The collective: `# Collective test starting: all_reduce_perf` (nccl-tests 2.13 and later), else the test binary on
// a command line printed before the table.
void read_collective(std::string_view s, ParsedRun& run, int number) {
  std::string name;
  if (auto test = text_after(s, "Collective test starting:")) {
    name = *test;
  } else {
    for (const std::string& t : tokens(s)) {
      const std::string base = t.substr(t.rfind('/') == std::string::npos ? 0 : t.rfind('/') + 1);
      if (base.size() > 5 && base.compare(base.size() - 5, 5, "_perf") == 0 && base.find('.') == std::string::npos) {
        name = base;
        break;
      }
    }
  }
  if (name.size() > 5 && name.compare(name.size() - 5, 5, "_perf") == 0 && !run.config.contains("comm.collective")) {
    run.set("comm.collective", name.substr(0, name.size() - 5), number);
  }
}

void read_other(std::string_view line, Header& h, ParsedRun& run, int number) {
  const std::string_view s = uncommented(line);
  if (s.rfind("nThread", 0) == 0) {
    read_nthread(s, h);
  } else if (auto version = text_after(s, "rccl-tests: Version")) {
    run.tool = "rccl-tests";
    run.version = *version;
  } else if (auto nccl_version = text_after(s, "nccl-tests version")) {
    run.version = nccl_version->substr(0, nccl_version->find(' '));
  } else if (s.rfind("Rank ", 0) == 0 && s.find(" device ") != std::string_view::npos) {
    read_rank(s, h, run);
  } else if (s.find("algbw") != std::string_view::npos && s.find("busbw") != std::string_view::npos) {
    h.layout = header_layout(line, h.previous);
    h.column_header = number;
  } else if (h.column_header == 0) {
    read_collective(line, run, number);
  }
}

bool is_footer(std::string_view s) {
  return s.find("Avg bus bandwidth") != std::string_view::npos ||
         s.find("Out of bounds values") != std::string_view::npos;
}

std::optional<Failure> read_row(const std::vector<std::string>& t, const Line& line, Header& h, ParsedRun& run,
                                const std::string& origin) {
  if (!h.layout) {
    h.layout = row_layout(t);
  }
  if (!h.layout || !h.layout->fits(t.size())) {
    const std::size_t width = h.layout ? h.layout->width : 13;
    return bad_input(origin, line.number,
                     "a table line with " + std::to_string(t.size()) + " of nccl-tests' " + std::to_string(width) +
                         " columns (a line cut mid-row?): '" + std::string(trim(line.text)) + "'");
  }
  for (const Layout::Half& half : h.layout->halves) {
    if (auto l = placement(t, *h.layout, half)) {
      run.lines.push_back(*l);
    }
  }
  run.last_line = line.number;
  return std::nullopt;
}

// Whether `t` starts another table: a size not above the last one read.
bool starts_another_table(const std::vector<std::string>& t, const ParsedRun& run) {
  return !run.lines.empty() && *parse_number(t[0]) <= run.lines.back().size_bytes;
}

// Whether the file goes on with another table after the first (from `line` on, then the lines not yet read).
void note_rest(std::optional<Line> line, LineSource& lines, ParsedRun& run) {
  for (; line; line = lines.next()) {
    if (is_row(tokens(line->text))) {
      run.notes.push_back("the file goes on with another table at line " + std::to_string(line->number) +
                          " (another run or section): only the first table is read");
      return;
    }
  }
}

Failure no_rows(const Header& h, const std::string& origin) {
  if (h.column_header != 0) {
    return bad_input(origin, h.column_header,
                     "no table row after nccl-tests' column header: the file ends before the first result (a "
                     "crashed run, or an excerpt cut there)");
  }
  return bad_input(origin, 0, "no nccl-tests table row (size, count, time, algbw, busbw) in the file");
}

// A table row without its header: size, count, one of NCCL's data types, then the two halves' numbers.
bool is_headerless_row(std::string_view line) {
  const std::vector<std::string> t = tokens(line);
  if (!row_layout(t) || !is_row(t)) {
    return false;
  }
  for (const char* type : {"int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float", "double", "bfloat16",
                           "fp8_e4m3", "fp8_e5m2"}) {
    if (t[2] == type) {
      return true;
    }
  }
  return false;
}

}  // namespace

bool looks_like_nccl_tests(std::string_view text) {
  if (text.find("nThread") != std::string_view::npos || text.find("rccl-tests: Version") != std::string_view::npos ||
      (text.find("algbw") != std::string_view::npos && text.find("busbw") != std::string_view::npos)) {
    return true;
  }
  const std::vector<Line> lines = split_lines(text);
  return std::any_of(lines.begin(), lines.end(), [](const Line& l) { return is_headerless_row(l.text); });
}

Expected<ParsedRun> parse_nccl_tests(LineSource& lines, const std::string& origin) {
  ParsedRun run;
  run.tool = "nccl-tests";
  run.kind = RunKind::collective;
  Header h;
  std::optional<Line> rest;  // the first line after the table: where note_rest looks on
  while ((rest = lines.next())) {
    const Line& line = *rest;
    const std::vector<std::string> t = tokens(line.text);
    const bool row = is_row(t);
    run.first_line = run.first_line == 0 && !t.empty() ? line.number : run.first_line;
    if (row && starts_another_table(t, run)) {
      break;
    }
    if (!run.lines.empty() && !row && is_footer(line.text)) {
      h.footer = line.number;
      run.last_line = line.number;
      rest = lines.next();
      break;
    }
    if (!run.lines.empty() && !row && uncommented(line.text).rfind("nThread", 0) == 0) {
      break;  // the next test's header
    }
    if (row) {
      if (auto problem = read_row(t, line, h, run, origin)) {
        return *problem;
      }
    } else if (!t.empty()) {
      read_other(line.text, h, run, line.number);
      h.previous = std::string(line.text);
    }
  }
  if (run.lines.empty()) {
    return no_rows(h, origin);
  }
  note_rest(rest, lines, run);
  if (h.footer == 0) {
    run.notes.emplace_back("the table has no '# Avg bus bandwidth' footer: the run may have stopped early");
  }
  if (!h.ranks.empty()) {
    run.set("world_size", static_cast<std::int64_t>(h.ranks.size()), 0);
  }
  run.timing = run.tool + ": the mean time of " + h.iterations;
  return run;
}

}  // namespace dgx::logs
