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

// Whether most non-empty lines start the same way: an srun -l log, a paste quoted whole as a markdown blockquote.
bool most_lines(const std::vector<std::string_view>& lines, bool (*starts)(std::string_view), double share) {
  std::size_t with = 0;
  std::size_t nonempty = 0;
  for (const std::string_view l : lines) {
    if (!trim(l).empty()) {
      ++nonempty;
      with += starts(l) ? 1 : 0;
    }
  }
  return nonempty > 0 && static_cast<double>(with) >= share * static_cast<double>(nonempty);
}

bool quoted(std::string_view s) { return !s.empty() && s.front() == '>'; }

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

LauncherOutput::LauncherOutput(std::string text) : text_(std::move(text)) {
  ends_with_break_ = !text_.empty() && text_.back() == '\n';
  const bool coloured = text_.find('\x1b') != std::string::npos;  // once: a search per line is quadratic
  if (coloured) {
    std::string plain;
    plain.reserve(text_.size());
    for (const Line& l : split_lines(text_)) {
      plain += strip_ansi(l.text);
      plain += '\n';
    }
    text_ = std::move(plain);
  }
  std::vector<std::string_view> views;
  for (const Line& l : split_lines(text_)) {
    views.push_back(l.text);
  }
  ranks_.assign(views.size(), -1);
  const bool blockquote = most_lines(views, quoted, 1.0);
  const bool srun = most_lines(
      views, [](std::string_view s) { return srun_label(s).has_value(); }, 0.5);
  bool changed = coloured;
  const char* base = text_.data();
  for (std::size_t i = 0; i < views.size(); ++i) {
    std::string_view s = views[i];
    if (blockquote && quoted(s)) {
      s.remove_prefix(s.substr(0, 2) == "> " ? 2 : 1);
    }
    if (is_fence(s)) {
      s = {};
    }
    const Prefix named = strip_prefixes(s, srun);
    ranks_[i] = named.rank.value_or(-1);
    if (named.world_size && !world_size_) {
      world_size_ = named.world_size;
      world_size_line_ = static_cast<int>(i) + 1;
    }
    changed = changed || s.size() != views[i].size();
    // What is left of a line is a part of it (prefixes off the front, a fence emptied).
    const std::size_t begin =
        s.empty() ? static_cast<std::size_t>(views[i].data() - base) : static_cast<std::size_t>(s.data() - base);
    lines_.push_back({begin, s.size()});
  }
  if (changed) {
    rebuild(std::vector<bool>(lines_.size(), true));
  }
}

std::optional<int> LauncherOutput::rank_of(int number) const {
  const auto i = static_cast<std::size_t>(number - 1);
  return number < 1 || i >= ranks_.size() || ranks_[i] < 0 ? std::nullopt : std::optional<int>(ranks_[i]);
}

void LauncherOutput::keep_one_rank(const DataLine& is_data_line) {
  std::map<int, std::size_t> data_lines;  // rank -> how many of the format's data lines it prints
  for (std::size_t i = 0; i < lines_.size(); ++i) {
    if (ranks_[i] >= 0) {
      data_lines[ranks_[i]] += is_data_line(line(i)) ? 1 : 0;
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
  std::vector<bool> keep(lines_.size(), true);
  for (std::size_t i = 0; i < lines_.size(); ++i) {
    keep[i] = ranks_[i] < 0 || ranks_[i] == lowest || ranks_[i] == data_rank;
  }
  rebuild(keep);
}

std::vector<int> LauncherOutput::data_ranks(const DataLine& is_data_line, std::size_t limit) const {
  std::set<int> ranks;
  for (std::size_t i = 0; i < lines_.size(); ++i) {
    if (ranks_[i] >= 0 && is_data_line(line(i))) {
      ranks.insert(ranks_[i]);
    }
  }
  std::vector<int> lowest(ranks.begin(), ranks.end());
  lowest.resize(std::min(lowest.size(), limit));
  return lowest;
}

std::string LauncherOutput::rank_text(int rank) const {
  std::string text;
  for (std::size_t i = 0; i < lines_.size(); ++i) {
    if (ranks_[i] < 0 || ranks_[i] == rank) {
      text += line(i);
    }
    text += '\n';
  }
  return text;
}

// In place: a line only loses its front (prefixes) or all of it (another rank's, a fence), so every kept byte moves
// towards the start and a 100 MB log costs no second copy.
void LauncherOutput::rebuild(const std::vector<bool>& keep) {
  std::size_t out = 0;
  for (std::size_t i = 0; i < lines_.size(); ++i) {
    Span& span = lines_[i];
    const std::size_t size = keep[i] ? span.size : 0;
    if (size > 0 && span.begin != out) {
      std::memmove(text_.data() + out, text_.data() + span.begin, size);
    }
    span = {out, size};
    out += size;
    if (i + 1 < lines_.size() || ends_with_break_) {
      text_[out++] = '\n';  // a last line without its line break stays so: a parser may tell a file cut off by it
    }
  }
  text_.resize(out);
}

}  // namespace dgx::detail
