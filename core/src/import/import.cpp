// dgxhost import's driver: refuses what is no log at all (empty, binary), tells the formats apart by what only
// each prints, runs that format's parser, fills the gaps from --set and makes the rows.
#include "dgx/core/import/import.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <filesystem>

#include "dgx/core/support/files.hpp"
#include "dgx/core/support/printable.hpp"
#include "dgx/core/support/utc_time.hpp"
#include "launcher_output.hpp"
#include "log_text.hpp"
#include "parsed_run.hpp"
#include "steady_state.hpp"

namespace dgx {

namespace detail {

void ParsedRun::set(const std::string& key, json::Value value, int line) {
  config.set(key, std::move(value));
  line_of[key] = line;
}

std::optional<Failure> ParsedRun::agree(const std::string& key, const json::Value& value, int line,
                                        const std::string& origin) {
  const json::Value* before = config.find(key);
  if (before != nullptr && !(*before == value)) {
    return bad_input(origin, line,
                     "two runs in one file: " + key + " is " + json::write(*before, 0) + " at line " +
                         std::to_string(line_of[key]) + " and " + json::write(value, 0) +
                         " here; import one run per file");
  }
  if (before == nullptr) {
    set(key, value, line);
  }
  return std::nullopt;
}

WarmupRule ParsedRun::warmup_rule() const {
  WarmupRule rule;
  rule.first_step = steps.empty() ? 0 : steps.front();
  rule.warmup = user_warmup;
  rule.warm_at_start = warm_at_start;
  return rule;
}

void ParsedRun::add_latency(const std::string& name, std::optional<double> median_ms, std::optional<double> p90_ms,
                            std::optional<double> p99_ms, std::optional<double> mean_ms) {
  if (median_ms) {
    metrics.push_back(metric(name, *median_ms * 1e-3, "s"));
  }
  if (p90_ms) {
    metrics.push_back(metric(name + ".p90", *p90_ms * 1e-3, "s"));
  }
  if (p99_ms) {
    metrics.push_back(metric(name + ".p99", *p99_ms * 1e-3, "s"));
  }
  if (mean_ms) {
    metrics.push_back(metric(name + ".mean", *mean_ms * 1e-3, "s"));
  }
}

Failure bad_input(const std::string& origin, int line, const std::string& message) {
  return Failure{ExitCode::usage, origin + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + message};
}

}  // namespace detail

namespace {

using namespace detail;

struct ImportFormat {
  const char* name;
  bool (*looks_like)(std::string_view);
  Parser parse;
};

// Most specific first: loadgen's detail log is MLLOG too, an MLPerf log is also a NeMo log, a Megatron-LM log may
// carry a torchtitan-like line, SGLang's benchmark report is vLLM's with lines of its own.
constexpr std::array<ImportFormat, 11> kFormats = {{
    {"mlperf-inference", looks_like_mlperf_inference, parse_mlperf_inference},
    {"mlperf", looks_like_mllog, parse_mllog},
    {"nccl-tests", looks_like_nccl_tests, parse_nccl_tests},
    {"aiperf", looks_like_aiperf, parse_aiperf},
    {"genai-perf", looks_like_genai_perf, parse_genai_perf},
    {"sglang-bench", looks_like_sglang_bench, parse_sglang_bench},
    {"vllm-bench", looks_like_vllm_bench, parse_vllm_bench},
    {"trtllm-bench", looks_like_trtllm_bench, parse_trtllm_bench},
    {"megatron-lm", looks_like_megatron, parse_megatron_log},
    {"torchtitan", looks_like_torchtitan, parse_torchtitan_log},
    {"nemo", looks_like_nemo, parse_nemo_log},
}};

int line_at(std::string_view text, std::size_t byte) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(byte), '\n'));
}

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

std::optional<Failure> refuse_non_text(std::string_view text, const std::string& origin) {
  if (trim(text).empty()) {
    return bad_input(origin, 0, "the file is empty: nothing to import");
  }
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = text[i] == '\0' ? 0 : utf8_length(text, i);
    if (n == 0) {
      return bad_input(origin, line_at(text, i),
                       std::string("a binary file, not a log (") + (text[i] == '\0' ? "a NUL byte" : "invalid UTF-8") +
                           "): import reads the text a tool prints");
    }
    i += n;
  }
  return std::nullopt;
}

Failure unknown_format(std::string_view text, const std::string& origin) {
  std::string names;
  for (const ImportFormat& f : kFormats) {
    names += (names.empty() ? "" : ", ") + std::string(f.name);
  }
  const std::string first = std::string(trim(split_lines(trim(text)).front().text)).substr(0, 120);
  return bad_input(origin, 0, "not a log of any of: " + names + "; the first line is '" + printable(first) + "'");
}

}  // namespace

std::vector<std::string> import_formats() {
  std::vector<std::string> names;
  for (const ImportFormat& f : kFormats) {
    names.emplace_back(f.name);
  }
  return names;
}

namespace detail {

namespace {

constexpr std::size_t kMaxRanksCompared = 64;  // ranks whose own series are read to find a straggler
constexpr double kStragglerGap = 0.05;         // slower than the median rank by more than this: a straggler

// When several ranks print their own steps, the slowest rank's steady state against the median rank's: a rank
// further than kStragglerGap behind is named (the row reads one rank; a straggler sets everyone's pace).
void name_straggler(ParsedRun& run, const LauncherOutput& every_rank, const std::vector<int>& ranks, Parser parse,
                    const std::string& origin) {
  if (run.kind != RunKind::training || ranks.size() < 2) {
    return;
  }
  std::vector<std::pair<double, int>> speed;  // seconds per step (or 1 / rate), rank
  for (const int rank : ranks) {
    auto own = parse(every_rank.rank_text(rank), origin);
    if (!own || own->series.empty()) {
      continue;
    }
    WarmupRule rule = own->warmup_rule();
    rule.min_steps = 1;
    auto steady = steady_state(own->series, origin, rule);
    if (steady && steady->median > 0) {
      const bool time = own->series_kind == SeriesKind::step_time_s;
      speed.emplace_back(time ? steady->median : 1 / steady->median, rank);
    }
  }
  if (speed.size() < 2) {
    return;
  }
  std::sort(speed.begin(), speed.end());
  const double median = speed[(speed.size() - 1) / 2].first;  // the lower median: of two ranks, the faster
  const auto& [slowest, rank] = speed.back();
  if (slowest > (1 + kStragglerGap) * median) {
    run.notes.push_back(
        "rank " + std::to_string(rank) +
        " is a straggler: " + std::to_string(static_cast<int>(std::lround(100 * (slowest / median - 1)))) +
        "% slower per step than the median of the " + std::to_string(speed.size()) + " ranks that log their steps");
  }
}

}  // namespace

Expected<ParsedRun> read_run(std::string_view text, const std::string& origin) {
  if (auto problem = refuse_non_text(text, origin)) {
    return *problem;
  }
  // The parsers read the tool's own text: launcher prefixes off, one rank's lines (launcher_output.hpp), each line
  // where it was in the file.
  LauncherOutput log(text);
  const auto format =
      std::find_if(kFormats.begin(), kFormats.end(), [&](const ImportFormat& f) { return f.looks_like(log.text()); });
  if (format == kFormats.end()) {
    return unknown_format(text, origin);
  }
  const std::vector<int> ranks = log.data_ranks(format->looks_like, kMaxRanksCompared);
  const std::optional<LauncherOutput> every_rank = ranks.size() >= 2 ? std::optional(log) : std::nullopt;
  log.keep_one_rank(format->looks_like);
  auto run = format->parse(log.text(), origin);
  if (!run) {
    return run.error();
  }
  if (every_rank) {
    name_straggler(*run, *every_rank, ranks, format->parse, origin);
  }
  log.record_world_size(*run);
  if (auto problem = check_plausible(*run, origin)) {
    return *problem;
  }
  return run;
}

}  // namespace detail

namespace {

// import_text, dated by `file_time` (the file's modification time) when neither --set run.time nor the log does.
Expected<std::vector<ResultRow>> import_dated(std::string_view text, const std::string& origin,
                                              const std::vector<std::string>& sets,
                                              std::optional<std::int64_t> file_time) {
  auto run = read_run(text, origin);
  if (!run) {
    return run.error();
  }
  std::vector<std::string> config_sets;
  if (auto problem = apply_import_options(*run, sets, config_sets, origin)) {
    return *problem;
  }
  if (auto problem = select_run(*run, origin, false)) {
    return *problem;
  }
  if (!run->time && file_time) {
    run->time = *file_time;
    run->time_from = "the file's modification time";
  }
  if (auto problem = merge_sets(*run, config_sets, origin)) {
    return *problem;
  }
  if (auto problem = check_fabric(*run, origin)) {
    return *problem;
  }
  return make_rows(*run, origin);
}

std::optional<std::int64_t> modification_time(const std::string& path) {
  std::error_code ec;
  const auto written = std::filesystem::last_write_time(path, ec);
  if (ec) {
    return std::nullopt;
  }
  const auto since_epoch = std::chrono::file_clock::to_sys(written).time_since_epoch();
  return std::chrono::duration_cast<std::chrono::seconds>(since_epoch).count();
}

}  // namespace

Expected<std::vector<ResultRow>> import_text(std::string_view text, const std::string& origin,
                                             const std::vector<std::string>& sets) {
  return import_dated(text, origin, sets, std::nullopt);
}

namespace {

json::Object import_context(const std::vector<std::string>& paths, const std::vector<ResultRow>& rows,
                            const std::vector<std::string>& sets) {
  json::Object context;
  context.set("dgxhost", dgxhost_identity());
  context.set("workload", "import");
  json::Array files;
  for (const std::string& p : paths) {
    json::Object file;
    file.set("path", p);
    for (const ResultRow& r : rows) {
      const Field* f = r.find_field("file");
      if (f != nullptr && f->value.rfind(p + ":", 0) == 0) {
        file.set("tool", r.find_field("tool")->value);
        const Field* v = r.find_field("tool_version");
        file.set("tool_version", v != nullptr ? json::Value(v->value) : json::Value(nullptr));
        break;
      }
    }
    files.push_back(std::move(file));
  }
  json::Object import;
  import.set("files", std::move(files));
  json::Array set_array;
  for (const std::string& s : sets) {
    set_array.push_back(s);
  }
  import.set("sets", std::move(set_array));
  context.set("import", std::move(import));
  // When the run ran, for the store's history: the earliest of the files' times.
  std::optional<std::int64_t> earliest;
  for (const ResultRow& r : rows) {
    const Field* t = r.find_field("time");
    const auto seconds = t != nullptr ? parse_iso_utc(t->value) : std::nullopt;
    if (seconds && (!earliest || *seconds < *earliest)) {
      earliest = seconds;
    }
  }
  if (earliest) {
    context.set("time", iso_utc(*earliest));
  }
  return context;
}

}  // namespace

Expected<Report> import_files(const std::vector<std::string>& paths, const std::vector<std::string>& sets) {
  Report report;
  for (const std::string& path : paths) {
    auto text = read_regular_file(path, kMaxImportBytes, "file to import");
    if (!text) {
      return text.error();
    }
    auto rows = import_dated(*text, path, sets, modification_time(path));
    if (!rows) {
      return rows.error();
    }
    report.rows.insert(report.rows.end(), rows->begin(), rows->end());
  }
  report.context = import_context(paths, report.rows, sets);
  return report;
}

}  // namespace dgx
