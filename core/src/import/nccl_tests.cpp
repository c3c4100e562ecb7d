// nccl-tests' output (src/common.cu): a header that says the run's shape,
//   # nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 ...
//   #  Rank  0 Group  0 Pid  12345 on   node-01 device  0 [0x1b] NVIDIA H100 80GB HBM3
// then one line per size with an out-of-place and an in-place half,
//   #       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw
//   #wrong
//           1024           256     float     sum      -1    12.34    0.08    0.15      0    12.10    0.08    0.15 0
// and a footer, `# Avg bus bandwidth    : 123.45`. World size: the ranks listed; the GPU: their device name.
#include <sstream>

#include "log_text.hpp"
#include "parsed_run.hpp"

namespace dgx::detail {

namespace {

constexpr std::size_t kColumns = 13;  // size count type redop root, then time algbw busbw #wrong twice

std::vector<std::string> tokens(std::string_view line) {
  std::istringstream in{std::string(line)};
  std::vector<std::string> out;
  for (std::string t; in >> t;) {
    out.push_back(t);
  }
  return out;
}

// One placement's four columns starting at `at`; nullopt when nccl-tests printed N/A (no in-place variant).
std::optional<CollectiveLine> placement(const std::vector<std::string>& t, std::size_t at, const char* name) {
  const auto time = parse_number(t[at]);
  const auto algbw = parse_number(t[at + 1]);
  const auto busbw = parse_number(t[at + 2]);
  if (!time || !algbw || !busbw) {
    return std::nullopt;
  }
  CollectiveLine l;
  l.size_bytes = parse_number(t[0]).value_or(0);
  l.count = parse_number(t[1]).value_or(0);
  l.type = t[2];
  l.redop = t[3];
  l.placement = name;
  l.time_us = *time;
  l.algbw = *algbw;
  l.busbw = *busbw;
  l.wrong = parse_number(t[at + 3]);
  return l;
}

std::optional<Failure> read_row(const Line& line, ParsedRun& run, const std::string& origin) {
  const std::vector<std::string> t = tokens(line.text);
  if (t.size() != kColumns || !parse_number(t[0]) || !parse_number(t[1])) {
    return bad_input(origin, line.number,
                     "a table line with " + std::to_string(t.size()) + " of nccl-tests' " + std::to_string(kColumns) +
                         " columns (a line cut mid-row?): '" + std::string(trim(line.text)) + "'");
  }
  for (auto [at, name] : {std::pair<std::size_t, const char*>{5, "out-of-place"}, {9, "in-place"}}) {
    if (auto l = placement(t, at, name)) {
      run.lines.push_back(*l);
    }
  }
  return std::nullopt;
}

// `# Collective test starting: all_reduce_perf` (nccl-tests 2.13 and later) names the test.
void read_comment(std::string_view s, ParsedRun& run, int& ranks, int number) {
  if (auto version = text_after(s, "nccl-tests version")) {
    run.version = version->substr(0, version->find(' '));
  } else if (auto test = text_after(s, "Collective test starting:")) {
    std::string name = *test;
    if (name.size() > 5 && name.compare(name.size() - 5, 5, "_perf") == 0) {
      name.erase(name.size() - 5);
    }
    run.set("comm.collective", name, number);
  } else if (s.find(" Rank ") != std::string_view::npos && s.find(" device ") != std::string_view::npos) {
    ++ranks;
    const std::size_t bracket = s.find("] ");
    if (run.printed_device.empty() && bracket != std::string_view::npos) {
      run.printed_device = std::string(trim(s.substr(bracket + 2)));
    }
  } else if (number_after(s, "Avg bus bandwidth")) {
    run.line_of["footer"] = number;
  }
}

}  // namespace

bool looks_like_nccl_tests(std::string_view text) {
  return text.find("# nThread") != std::string_view::npos ||
         (text.find("algbw") != std::string_view::npos && text.find("busbw") != std::string_view::npos &&
          text.find("redop") != std::string_view::npos);
}

Expected<ParsedRun> parse_nccl_tests(std::string_view text, const std::string& origin) {
  ParsedRun run;
  run.tool = "nccl-tests";
  run.kind = RunKind::collective;
  int ranks = 0;
  int headers = 0;
  std::string iterations = "-n iterations after -w warm-up iterations";
  for (const Line& line : split_lines(text)) {
    const std::string_view s = trim(line.text);
    if (s.empty()) {
      continue;
    }
    run.first_line = run.first_line == 0 ? line.number : run.first_line;
    run.last_line = line.number;
    if (s.rfind("# nThread", 0) == 0) {
      if (++headers > 1) {
        return bad_input(origin, line.number,
                         "two runs in one file: a second '# nThread' header; import one run per file");
      }
      const auto warmup = number_after(s, "warmup iters:");
      const std::size_t after_warmup = s.find("warmup iters:");
      const auto iters =
          after_warmup == std::string_view::npos ? std::nullopt : number_after(s.substr(after_warmup + 13), "iters:");
      if (iters && warmup) {
        iterations = std::to_string(static_cast<long long>(*iters)) + " iterations after " +
                     std::to_string(static_cast<long long>(*warmup)) + " warm-up iterations";
      }
    } else if (s.front() == '#') {
      read_comment(s, run, ranks, line.number);
    } else if (run.line_of.count("footer") != 0) {
      return bad_input(origin, line.number, "a table line after the footer: two runs in one file?");
    } else if (auto problem = read_row(line, run, origin)) {
      return *problem;
    }
  }
  if (run.lines.empty()) {
    return bad_input(origin, 0, "an nccl-tests header without any table line (a crashed run?)");
  }
  if (run.line_of.count("footer") == 0) {
    run.notes.emplace_back("the table has no '# Avg bus bandwidth' footer: the run may have stopped early");
  }
  run.line_of.erase("footer");
  if (ranks > 0) {
    run.set("world_size", static_cast<std::int64_t>(ranks), 0);
  }
  run.timing = "nccl-tests: the mean time of " + iterations;
  return run;
}

}  // namespace dgx::detail
