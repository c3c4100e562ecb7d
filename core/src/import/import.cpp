// dgxhost import's driver: refuses what is no log at all (empty, binary), takes off what launchers add, asks every
// loaded format's probe, and hands the text to the best format's reader in the plugin that declares it.
#include "dgx/core/import/import.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>

#include "dgx/core/config/layered_config.hpp"
#include "dgx/core/plugin/call_guard.hpp"
#include "dgx/core/plugin/detail/strided.hpp"
#include "dgx/core/plugin/host_services.hpp"
#include <dgx/sdk/error.hpp>

#include "dgx/core/support/files.hpp"
#include "dgx/core/support/printable.hpp"
#include "dgx/core/support/text.hpp"
#include "dgx/core/support/utc_time.hpp"
#include "dgx/log_import/log_text.hpp"
#include "launcher_output.hpp"
#include "log_input.hpp"

namespace dgx {

namespace {

using detail::LauncherOutput;
using detail::LogInput;
using detail::RankFilter;

constexpr std::size_t kMaxImportBytes = std::size_t{256} << 20;  // a long training log, not a dataset
constexpr std::size_t kHeadBytes = DGX_IMPORT_HEAD_BYTES;        // what the probes see of a file, and a reader's `text`
constexpr std::size_t kMaxRanksCompared = 64;                    // ranks whose own series are read to find a straggler
constexpr double kStragglerGap = 0.05;  // slower than the median rank by more than this: a straggler

Failure bad_input(const std::string& origin, int line, const std::string& message) {
  return Failure{ExitCode::usage, origin + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + message};
}

// The file stopped being readable mid-pass (an I/O error, a log truncated while it was read).
Failure unreadable(const std::string& origin, const std::string& why) {
  return Failure{ExitCode::usage, origin + ": " + why + "; nothing was imported"};
}

// How surely `text` is `format` (0-100), the plugin's probe under a guard.
int score(const FormatInfo& format, std::string_view text) {
  const CallGuard guard(format.plugin->name + ": probe of format " + format.name);
  return format.desc->probe(format.desc, text.data(), text.size());  // a view: no copy of a large log
}

// The highest-scoring format, the first loaded on a tie.
const FormatInfo* best_format(const std::vector<const FormatInfo*>& formats, std::string_view text) {
  const FormatInfo* best = nullptr;
  int best_score = 0;
  for (const FormatInfo* f : formats) {
    const int s = score(*f, text);
    if (s > best_score) {
      best = f;
      best_score = s;
    }
  }
  return best;
}

Failure unknown_format(const std::vector<std::string>& names, std::string_view text, const std::string& origin) {
  if (names.empty()) {
    return bad_input(origin, 0,
                     "no loaded plugin reads logs (formats come with llm-pretrain, llm-inference and comm): check "
                     "--plugin-dir and `dgxhost --list`");
  }
  const std::string first = std::string(logs::trim(logs::split_lines(logs::trim(text)).front().text)).substr(0, 120);
  return bad_input(
      origin, 0, "not a log of any of: " + text::join(names, ", ") + "; the first line is '" + printable(first) + "'");
}

// The user's --set entries as the ABI carries them: typed by the command line's rules, as TOML literals.
Expected<std::vector<std::pair<std::string, std::string>>> typed_sets(const std::vector<std::string>& sets) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& set : sets) {
    auto entry = parse_set_argument(set);
    if (!entry) {
      return Failure{ExitCode::usage, "--set " + printable(set) + ": " + entry.error().message};
    }
    out.emplace_back(entry->key, to_toml_literal(entry->value));
  }
  return out;
}

LogReading to_reading(const dgx_log_reading& r) {
  auto str = [](const char* s) { return s == nullptr ? std::string() : printable(s); };
  LogReading out;
  out.tool = str(r.tool);
  out.version = str(r.version);
  out.kind = str(r.kind);
  out.workload = str(r.workload);
  out.timing = str(r.timing);
  out.lines = str(r.lines);
  out.steady_state = str(r.steady_state);
  for (std::uint32_t i = 0; i < r.value_count && r.values != nullptr; ++i) {
    const dgx_metric& m = detail::strided_element(r.values, i);
    out.values.push_back({str(m.name), m.value, str(m.unit), false, {}});
  }
  for (std::uint32_t i = 0; i < r.printed_count && r.printed != nullptr; ++i) {
    const dgx_field& f = detail::strided_element(r.printed, i);
    out.printed.push_back({str(f.key), str(f.value), false});
  }
  for (std::uint32_t i = 0; i < r.note_count && r.notes != nullptr; ++i) {
    out.notes.push_back(str(r.notes[i]));
  }
  return out;
}

dgx_status take_reading(void* ctx, const dgx_log_reading* reading) {
  if (reading == nullptr || reading->struct_size < sizeof(dgx_log_reading)) {
    return DGX_ERR_INVALID_ARGUMENT;
  }
  *static_cast<std::optional<LogReading>*>(ctx) = to_reading(*reading);
  return DGX_OK;
}

// The text a format reads: launcher prefixes off, one rank's lines; the ranks that log the format's data lines.
struct Prepared {
  LauncherOutput log;
  const FormatInfo* format = nullptr;
  std::vector<int> ranks;
  std::vector<std::pair<std::string, std::string>> sets;  ///< the user's --set as typed TOML literals
};

}  // namespace

LogImporter::LogImporter(const PluginRegistry& registry, const Logger& logger, HostComm& comm,
                         std::vector<SearchPath> config_paths)
    : registry_(registry), logger_(logger), comm_(comm), config_paths_(std::move(config_paths)) {}

std::vector<std::string> LogImporter::formats() const {
  std::vector<std::string> names;
  for (const FormatInfo* f : registry_.formats()) {
    names.push_back(f->name);
  }
  return names;
}

namespace {

// One call of a format's reader: the rows it emits into `rows`, or the reading into `reading`.
struct ReadCall {
  const FormatInfo& format;
  const LauncherOutput& log;
  RankFilter ranks;  // whose lines it reads
  const std::string& origin;
  const std::vector<std::pair<std::string, std::string>>& sets;
  bool inspect = false;
  std::optional<int> world_size;
  int world_size_line = 0;
  std::optional<std::int64_t> file_time;
};

// dgx_import_request.next_line: the kept lines, cleaned one at a time as the reader asks for them.
struct LineStream {
  LauncherOutput::Cursor cursor;
  std::string line;  // the last line handed out, with its line break
};

dgx_status stream_line(void* ctx, const char** text, std::uint64_t* size, std::int32_t* number) {
  if (ctx == nullptr || text == nullptr || size == nullptr || number == nullptr) {
    return DGX_ERR_INVALID_ARGUMENT;
  }
  auto& stream = *static_cast<LineStream*>(ctx);
  LauncherOutput::Line line;
  if (!stream.cursor.next(line)) {
    *text = nullptr;
    *size = 0;
    *number = 0;
    return stream.cursor.failed() ? DGX_ERR_RUNTIME : DGX_OK;  // the importer names the cause
  }
  stream.line.assign(line.text);
  stream.line += line.line_break ? "\n" : "";
  *text = stream.line.data();
  *size = stream.line.size();
  *number = line.number;
  return DGX_OK;
}

}  // namespace

namespace detail {

// Runs one reader of `call.format` with a host of no configuration; its rows land in `report`.
std::optional<Failure> run_reader(const ReadCall& call, HostServices& services, Report& report,
                                  std::optional<LogReading>& reading) {
  std::vector<dgx_config_entry> entries;
  for (const auto& [key, literal] : call.sets) {
    entries.push_back({sizeof(dgx_config_entry), key.c_str(), literal.c_str(), 0});
  }
  const LoadedPlugin& plugin = *call.format.plugin;
  // A plugin of ABI 1.3 reads the lines as a stream and gets the first ones as `text`; an older one the whole text.
  const bool streamed = plugin.abi_version >= DGX_ABI_V1_3;
  bool complete = true;
  const std::string text = call.log.text(streamed ? kHeadBytes : std::string::npos, complete, call.ranks);
  std::optional<LineStream> stream;
  if (streamed) {
    stream.emplace(LineStream{call.log.lines(call.ranks), {}});
  }
  dgx_import_request request{};
  request.struct_size = sizeof request;
  request.text = text.data();
  request.size = text.size();
  request.next_line = streamed ? &stream_line : nullptr;
  request.lines_ctx = streamed ? &*stream : nullptr;
  request.text_complete = complete ? 1 : 0;
  request.origin = call.origin.c_str();
  request.sets = entries.empty() ? nullptr : entries.data();
  request.set_count = static_cast<std::uint32_t>(entries.size());
  request.inspect = call.inspect ? 1 : 0;
  request.world_size = call.world_size.value_or(0);
  request.world_size_line = call.world_size_line;
  request.has_file_time = call.file_time ? 1 : 0;
  request.file_time = call.file_time.value_or(0);
  const dgx_import_sink sink{sizeof(dgx_import_sink), &reading, &take_reading};
  services.bind_report(&report, "", plugin.name);
  char message[4096] = {};
  dgx_error error{sizeof(dgx_error), sizeof message, message};
  dgx_status status = DGX_OK;
  {
    const CallGuard guard(plugin.name + ": read() of format " + call.format.name);
    status = call.format.desc->read(call.format.desc, services.api(), &request, &sink, &error);
  }
  if (auto refused = services.take_refusal()) {
    return refused;
  }
  if (stream && stream->cursor.failed()) {
    return unreadable(call.origin, call.log.read_error());
  }
  if (status == DGX_ERR_INVALID_ARGUMENT || status == DGX_ERR_NOT_FOUND) {
    return Failure{ExitCode::usage, printable(message)};  // the reader's message names the file and the line
  }
  if (status != DGX_OK) {
    return Failure{ExitCode::run_failed, "plugin " + plugin.name + " failed to read " + call.origin + " as " +
                                             call.format.name + " (" + sdk::status_symbol(status) +
                                             "): " + printable(message)};
  }
  if (call.inspect && !reading) {
    return Failure{ExitCode::run_failed,
                   "plugin " + plugin.name + ": format " + call.format.name + " returned no reading of " + call.origin};
  }
  return std::nullopt;
}

}  // namespace detail

namespace {

/// What import and inspect share before the reader runs: a text log, the format that reads it, the ranks it holds,
/// and the --set values typed.
Expected<Prepared> prepare(const PluginRegistry& registry, LogInput& input, const std::string& origin,
                           const std::vector<std::string>& sets) {
  Prepared p{LauncherOutput(input), nullptr, {}, {}};
  if (!p.log.read_error().empty()) {
    return unreadable(origin, p.log.read_error());
  }
  if (p.log.blank()) {
    return bad_input(origin, 0, "the file is empty: nothing to import");
  }
  if (const auto& binary = p.log.non_text()) {
    return bad_input(origin, binary->line,
                     std::string("a binary file, not a log (") + binary->what +
                         "): import reads the text a tool prints");
  }
  bool complete = true;
  const std::string head = p.log.text(kHeadBytes, complete, RankFilter{});  // what the probes see of a large log
  const std::vector<const FormatInfo*> formats = registry.formats();
  p.format = best_format(formats, head);
  if (p.format == nullptr) {
    std::vector<std::string> names;
    for (const FormatInfo* f : formats) {
      names.push_back(f->name);
    }
    return unknown_format(names, head, origin);
  }
  const FormatInfo& format = *p.format;
  const detail::DataLine is_data_line = [&format](std::string_view line) { return score(format, line) > 0; };
  p.log.keep_one_rank(is_data_line);
  p.ranks = p.log.data_ranks(kMaxRanksCompared);
  if (!p.log.read_error().empty()) {
    return unreadable(origin, p.log.read_error());
  }
  auto typed = typed_sets(sets);
  if (!typed) {
    return typed.error();
  }
  p.sets = std::move(typed).value();
  return p;
}

// The headline of a rank's reading as seconds per step (a time as it is, a rate inverted): lower is faster.
std::optional<double> pace(const LogReading& r) {
  if (r.values.empty() || !(r.values.front().value > 0)) {
    return std::nullopt;
  }
  const Metric& m = r.values.front();
  return m.unit == "s" ? m.value : 1 / m.value;
}

}  // namespace

Expected<LogReading> LogImporter::inspect_text(std::string text, const std::string& origin,
                                               const std::vector<std::string>& sets) const {
  LogInput input(std::move(text));
  return inspect_input(input, origin, sets);
}

Expected<LogReading> LogImporter::inspect_input(LogInput& input, const std::string& origin,
                                                const std::vector<std::string>& sets) const {
  auto prepared = prepare(registry_, input, origin, sets);
  if (!prepared) {
    return prepared.error();
  }
  Prepared& p = prepared.value();
  const FormatInfo& format = *p.format;
  HostServices services(logger_, comm_, config_paths_, format.plugin->name);
  Report scratch;
  std::optional<LogReading> reading;
  const ReadCall call{format, p.log, p.log.kept(), origin, p.sets, true, p.log.world_size(), p.log.world_size_line(),
                      {}};
  if (auto problem = detail::run_reader(call, services, scratch, reading)) {
    return *problem;
  }
  return *reading;
}

Expected<std::vector<ResultRow>> LogImporter::import_text(std::string text, const std::string& origin,
                                                          const std::vector<std::string>& sets,
                                                          std::optional<std::int64_t> file_time) const {
  LogInput input(std::move(text));
  return import_input(input, origin, sets, file_time);
}

Expected<std::vector<ResultRow>> LogImporter::import_input(LogInput& input, const std::string& origin,
                                                           const std::vector<std::string>& sets,
                                                           std::optional<std::int64_t> file_time) const {
  auto prepared = prepare(registry_, input, origin, sets);
  if (!prepared) {
    return prepared.error();
  }
  Prepared& p = prepared.value();
  const FormatInfo& format = *p.format;
  HostServices services(logger_, comm_, config_paths_, format.plugin->name);
  Report report;
  std::optional<LogReading> reading;
  const ReadCall call{format,   p.log, p.log.kept(), origin, p.sets, false, p.log.world_size(), p.log.world_size_line(),
                      file_time};
  if (auto problem = detail::run_reader(call, services, report, reading)) {
    return *problem;
  }
  if (report.rows.empty()) {
    return Failure{ExitCode::run_failed,
                   "plugin " + format.plugin->name + ": format " + format.name + " made no row of " + origin};
  }
  // When several ranks log their own steps, each rank's pace against the median rank's: a rank further than
  // kStragglerGap behind is named (the row reads one rank; a straggler sets everyone's pace).
  std::string straggler;
  if (p.ranks.size() >= 2 && !report.rows.front().sample_times.empty()) {
    std::vector<std::pair<double, int>> paces;
    const std::vector<std::pair<std::string, std::string>> no_sets;
    for (const int rank : p.ranks) {  // one pass over the file per rank, never a copy of it
      std::optional<LogReading> rank_reading;
      Report unused;
      const ReadCall rank_call{format, p.log, RankFilter{{rank}}, origin, no_sets, true, {}, 0, {}};
      if (!detail::run_reader(rank_call, services, unused, rank_reading) && rank_reading) {
        if (auto seconds = pace(*rank_reading)) {
          paces.emplace_back(*seconds, rank);
        }
      }
    }
    if (paces.size() >= 2) {
      std::sort(paces.begin(), paces.end());
      const double median = paces[(paces.size() - 1) / 2].first;  // the lower median: of two ranks, the faster
      const auto& [slowest, rank] = paces.back();
      if (slowest > (1 + kStragglerGap) * median) {
        straggler = "rank " + std::to_string(rank) +
                    " is a straggler: " + std::to_string(static_cast<int>(std::lround(100 * (slowest / median - 1)))) +
                    "% slower per step than the median of the " + std::to_string(paces.size()) +
                    " ranks that log their steps";
      }
    }
  }
  for (ResultRow& row : report.rows) {
    // The rows are the workload's: the plugin that projects it owns them (a fine-tuning log read by llm-pretrain
    // is llm-finetune's).
    for (const auto& plugin : registry_.plugins()) {
      if (plugin->find_workload(row.workload) != nullptr) {
        row.plugin = plugin->name;
        break;
      }
    }
    // The label is what stays the same from one night's log to the next (the store keys series on it).
    if (const Field* tool = row.find_field("tool")) {
      row.label = tool->value;
    }
    if (!straggler.empty()) {
      const Field* note = row.find_field("note");
      row.add_field({"note", note == nullptr ? straggler : note->value + "; " + straggler, false});
    }
  }
  return std::move(report.rows);
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

Expected<LogReading> LogImporter::inspect_file(const std::string& path, const std::vector<std::string>& sets) const {
  auto input = LogInput::open(path, kMaxImportBytes, "file to inspect");
  if (!input) {
    return input.error();
  }
  return inspect_input(*input, path, sets);
}

Expected<Report> LogImporter::import_files(const std::vector<std::string>& paths,
                                           const std::vector<std::string>& sets) const {
  Report report;
  for (const std::string& path : paths) {
    auto input = LogInput::open(path, kMaxImportBytes, "file to import");
    if (!input) {
      return input.error();
    }
    auto rows = import_input(*input, path, sets, modification_time(path));
    if (!rows) {
      return rows.error();
    }
    report.rows.insert(report.rows.end(), rows->begin(), rows->end());
  }
  report.context = import_context(paths, report.rows, sets);
  return report;
}

}  // namespace dgx
