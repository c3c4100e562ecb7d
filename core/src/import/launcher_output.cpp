// The prefixes launchers and loggers put before a tool's own text, each recognised by its exact shape so that a
// line of data is never mistaken for one: a table row "   65536   8192 float ..." has no colon after its number, an
// srun task prefix does, and srun's prefixes are taken off only when most lines carry one.
#include "launcher_output.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <set>
#include <utility>

#include "dgx/log_import/log_text.hpp"

namespace dgx::detail {

using logs::Line;
using logs::split_lines;
using logs::strip_ansi;
using logs::trim;

namespace {

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// The digits at the front of `s` (at most 9), consumed.
std::optional<int> take_int(std::string_view& s) {
  std::size_t n = 0;
  while (n < s.size() && n < 9 && is_digit(s[n])) {
    ++n;
  }
  if (n == 0) {
    return std::nullopt;
  }
  const int value = std::stoi(std::string(s.substr(0, n)));
  s.remove_prefix(n);
  return value;
}

bool take(std::string_view& s, std::string_view what) {
  if (s.substr(0, what.size()) != what) {
    return false;
  }
  s.remove_prefix(what.size());
  return true;
}

// `n` digits at the front of `s`, consumed.
bool take_digits(std::string_view& s, std::size_t n) {
  if (s.size() < n || !std::all_of(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(n), is_digit)) {
    return false;
  }
  s.remove_prefix(n);
  return true;
}

// A date and time: 2025-11-24 07:20:26, 2025-11-24T07:20:26.123Z, 2025/11/24 07:20:26,123, 20251114 13:54:06.
bool take_timestamp(std::string_view& s) {
  std::string_view t = s;
  const bool date = take_digits(t, 4) &&
                    ((take(t, "-") && take_digits(t, 2) && take(t, "-") && take_digits(t, 2)) ||
                     (take(t, "/") && take_digits(t, 2) && take(t, "/") && take_digits(t, 2)) || take_digits(t, 4));
  if (!date || !(take(t, " ") || take(t, "T")) || !take_digits(t, 2) || !take(t, ":") || !take_digits(t, 2) ||
      !take(t, ":") || !take_digits(t, 2)) {
    return false;
  }
  if (take(t, ".") || take(t, ",")) {
    while (!t.empty() && is_digit(t.front())) {
      t.remove_prefix(1);
    }
  }
  if (!take(t, "Z") && (take(t, "+") || take(t, "-")) && take_digits(t, 2)) {
    take(t, ":");
    take_digits(t, 2);
  }
  s = t;
  return true;
}

struct Prefix {
  std::size_t length = 0;         // characters taken off
  std::optional<int> rank;        // the rank it names
  std::optional<int> world_size;  // the world size it names (Primus' rank-R/W)
};

// mpirun --tag-output: "[1,0]<stdout>:" (job, rank).
std::optional<Prefix> mpirun_tag(std::string_view s) {
  const std::size_t size = s.size();
  if (!take(s, "[") || !take_int(s) || !take(s, ",")) {
    return std::nullopt;
  }
  const auto rank = take_int(s);
  if (!rank || !take(s, "]<") || !(take(s, "stdout>:") || take(s, "stderr>:"))) {
    return std::nullopt;
  }
  return Prefix{size - s.size(), rank, std::nullopt};
}

// torchrun's --tee/--local-ranks-filter: "[rank0]:", "[default3]:" (the role, then the local rank).
std::optional<Prefix> torchrun_tag(std::string_view s) {
  const std::size_t size = s.size();
  if (!take(s, "[")) {
    return std::nullopt;
  }
  std::size_t letters = 0;
  while (letters < s.size() && std::isalpha(static_cast<unsigned char>(s[letters])) != 0) {
    ++letters;
  }
  s.remove_prefix(letters);
  const auto rank = letters > 0 ? take_int(s) : std::nullopt;
  if (!rank || !take(s, "]:")) {
    return std::nullopt;
  }
  return Prefix{size - s.size(), rank, std::nullopt};
}

bool is_level(std::string_view s) {
  s = trim(s);
  for (std::string_view level : {"TRACE", "DEBUG", "INFO", "SUCCESS", "WARNING", "WARN", "ERROR", "CRITICAL"}) {
    if (s == level) {
      return true;
    }
  }
  return false;
}

// "[-----trainer.py:2382]": a source location, dashes padding it.
bool is_source_location(std::string_view s) {
  while (!s.empty() && s.front() == '-') {
    s.remove_prefix(1);
  }
  const std::size_t colon = s.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == s.size() || s.substr(0, colon).find(".py") == std::string::npos) {
    return false;
  }
  return std::all_of(s.begin() + static_cast<std::ptrdiff_t>(colon) + 1, s.end(), is_digit);
}

// One bracketed group of a logger's prefix: "[2025-11-24 07:20:26]", "[rank-15/16]", "[INFO ]",
// "[----trainer.py:2382] :" (AMD Primus prints all four before each line).
std::optional<Prefix> bracket_group(std::string_view s) {
  const std::size_t size = s.size();
  if (!take(s, "[")) {
    return std::nullopt;
  }
  const std::size_t close = s.find(']');
  if (close == std::string_view::npos) {
    return std::nullopt;
  }
  std::string_view inside = s.substr(0, close);
  s.remove_prefix(close + 1);
  Prefix p;
  if (std::string_view r = inside; take(r, "rank-") || take(r, "rank ")) {
    p.rank = take_int(r);
    if (take(r, "/")) {
      p.world_size = take_int(r);
    }
    if (!p.rank || !r.empty()) {
      return std::nullopt;
    }
  } else if (is_source_location(inside)) {
    take(s, " :") || take(s, ":");
  } else if (std::string_view t = inside; !is_level(inside) && !(take_timestamp(t) && trim(t).empty())) {
    return std::nullopt;
  }
  take(s, " ");
  p.length = size - s.size();
  return p;
}

std::optional<Prefix> bare_timestamp(std::string_view s) {
  const std::size_t size = s.size();
  if (!take_timestamp(s) || !(s.empty() || take(s, " "))) {
    return std::nullopt;
  }
  return Prefix{size - s.size(), std::nullopt, std::nullopt};
}

// srun -l: "0: ", "12: " (right-aligned with spaces when there are many tasks).
std::optional<Prefix> srun_label(std::string_view s) {
  const std::size_t size = s.size();
  while (!s.empty() && s.front() == ' ') {
    s.remove_prefix(1);
  }
  const auto rank = take_int(s);
  if (!rank || !(take(s, ": ") || (s == ":"))) {
    return std::nullopt;
  }
  return Prefix{size - s.size() + (s == ":" ? 1 : 0), rank, std::nullopt};
}

bool is_fence(std::string_view s) { return trim(s).substr(0, 3) == "```"; }

bool quoted(std::string_view s) { return !s.empty() && s.front() == '>'; }

// The length of the UTF-8 sequence starting at `i`, or 0 when it is not one.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) {
    return 0;
  }
  for (std::size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) {
      return 0;
    }
  }
  return n;
}

// What shows `line` is no text, or nullptr.
const char* non_text_in(std::string_view line) {
  for (std::size_t i = 0; i < line.size();) {
    const std::size_t n = line[i] == '\0' ? 0 : utf8_length(line, i);
    if (n == 0) {
      return line[i] == '\0' ? "a NUL byte" : "invalid UTF-8";
    }
    i += n;
  }
  return nullptr;
}

// `raw` without its ANSI colours: a view of it when it has none, else of `scratch`.
std::string_view without_colours(std::string_view raw, std::string& scratch) {
  if (raw.find('\x1b') == std::string_view::npos) {
    return raw;
  }
  scratch = strip_ansi(raw);
  return scratch;
}

// Takes every prefix off the front of `s`, outermost first (srun's label only there), and says the rank and world
// size they name.
Prefix strip_prefixes(std::string_view& s, bool srun) {
  Prefix named;
  for (bool first = true;; first = false) {
    std::optional<Prefix> p = first && srun ? srun_label(s) : std::nullopt;
    for (auto* kind : {mpirun_tag, torchrun_tag, bracket_group, bare_timestamp}) {
      p = p ? p : kind(s);
    }
    if (!p || p->length == 0) {
      return named;
    }
    s.remove_prefix(p->length);
    named.length += p->length;
    named.rank = p->rank ? p->rank : named.rank;
    named.world_size = p->world_size ? p->world_size : named.world_size;
  }
}

}  // namespace

bool RankFilter::keeps(int rank) const {
  return ranks.empty() || rank < 0 || std::find(ranks.begin(), ranks.end(), rank) != ranks.end();
}

LauncherOutput::LauncherOutput(LogInput& input) : input_(input) {
  // The shape: text or not, and the prefixes most lines carry (each line's colours off first).
  std::size_t nonempty = 0;
  std::size_t quoted_lines = 0;
  std::size_t srun_lines = 0;
  std::string scratch;
  std::string_view raw;
  input_.rewind();
  while (input_.next(raw, ends_with_break_)) {
    ++line_count_;
    if (!non_text_) {
      if (const char* what = non_text_in(raw)) {
        non_text_ = NonText{line_count_, what};
      }
    }
    const std::string_view s = without_colours(raw, scratch);
    if (!trim(s).empty()) {
      blank_ = false;
      ++nonempty;
      quoted_lines += quoted(s) ? 1 : 0;
      srun_lines += srun_label(s) ? 1 : 0;
    }
  }
  blockquote_ = nonempty > 0 && quoted_lines == nonempty;
  srun_ = nonempty > 0 && 2 * srun_lines >= nonempty;
  if (non_text_) {
    return;  // refused as it is: no prefix means anything in a binary file
  }
  // The world size a prefix shows.
  Cursor cursor = lines(RankFilter{});
  for (Line line; cursor.next(line);) {
    if (line.world_size > 0) {
      world_size_ = line.world_size;
      world_size_line_ = line.number;
      break;
    }
  }
}

LauncherOutput::Cursor::Cursor(const LauncherOutput& log, RankFilter filter) : log_(log), filter_(std::move(filter)) {
  log_.input_.rewind();
}

bool LauncherOutput::Cursor::next(Line& line) {
  std::string_view raw;
  bool line_break = true;
  while (log_.input_.next(raw, line_break)) {
    ++number_;
    std::string_view s = without_colours(raw, scratch_);
    if (log_.blockquote_ && quoted(s)) {
      s.remove_prefix(s.substr(0, 2) == "> " ? 2 : 1);
    }
    if (is_fence(s)) {
      s = {};
    }
    const Prefix named = strip_prefixes(s, log_.srun_);
    const int rank = named.rank.value_or(-1);
    if (filter_.keeps(rank)) {
      line = Line{s, number_, rank, line_break, named.world_size.value_or(0)};
      return true;
    }
  }
  return false;
}

std::string LauncherOutput::text(std::size_t max_bytes, bool& complete, const RankFilter& filter) const {
  std::string out;
  complete = true;
  int number = 0;  // of the last line written
  Cursor cursor = lines(filter);
  for (Line line; cursor.next(line);) {
    const std::size_t gap = static_cast<std::size_t>(line.number - number - 1);  // other ranks' lines, left empty
    if (gap + line.text.size() + 1 > max_bytes - out.size()) {
      complete = false;
      return out;
    }
    out.append(gap, '\n');
    out += line.text;
    out += line.line_break ? "\n" : "";
    number = line.number;
  }
  if (number < line_count_) {  // the last lines were another rank's
    out.append(static_cast<std::size_t>(line_count_ - number - (ends_with_break_ ? 0 : 1)), '\n');
  }
  return out;
}

std::string LauncherOutput::text() const {
  bool complete = true;
  return text(std::string::npos, complete, kept_);
}

void LauncherOutput::keep_one_rank(const DataLine& is_data_line) {
  std::map<int, std::size_t> data_lines;  // rank -> how many of the format's data lines it prints
  Cursor cursor = lines(RankFilter{});
  for (Line line; cursor.next(line);) {
    if (line.rank >= 0) {
      data_lines[line.rank] += is_data_line(line.text) ? 1 : 0;
    }
  }
  data_ranks_.clear();
  for (const auto& [rank, n] : data_lines) {
    if (n > 0) {
      data_ranks_.push_back(rank);  // lowest first, as the map holds them
    }
  }
  if (data_lines.size() < 2) {
    return;
  }
  std::size_t most = 0;
  for (const auto& [rank, n] : data_lines) {
    most = std::max(most, n);
  }
  // Most of them, not all: one rank may print a line more (a last pipeline stage's loss), the lowest of those that
  // print most is the one kept; a rank printing only a header line is not the one logging the steps.
  int data_rank = data_lines.begin()->first;
  for (const auto& [rank, n] : data_lines) {
    if (2 * n >= most && n > 0) {
      data_rank = rank;
      break;
    }
  }
  const int lowest = data_lines.begin()->first;
  kept_.ranks = lowest == data_rank ? std::vector<int>{lowest} : std::vector<int>{lowest, data_rank};
}

}  // namespace dgx::detail
