// Reading other tools' output (ABI 1.2; streamed since 1.3): a plugin declares the formats it reads, each a probe that
// scores a text and a reader that turns it into rows. dgxhost import, verdict and store add open the file, take off
// what launchers add, ask every loaded format's probe and hand the text to the highest score.
//
//   spec.formats.push_back({.name = "hello-log", .summary = "hello's stdout",
//                           .probe = [](std::string_view text) { return has(text, "hello v") ? 90 : 0; },
//                           .read = [](dgx::sdk::Host& host, const dgx::sdk::ImportRequest& request,
//                                      dgx::sdk::ImportSink& sink) { ... host.emit(row) ...; }});
//
// A reader takes the file's lines one at a time from request.next_line (a 100 MB log is never held whole: keep what
// the rows need) or, for a document read whole (a JSON export), request.text when request.text_complete says it is
// the whole file. A reader emits rows of mode measured through Host::emit, each naming its workload and carrying the
// run's configuration in that workload's keys (verdict projects exactly that configuration), or, when request.inspect
// is set, says what the file says by itself through sink.reading(). It throws InvalidArgument naming the line
// ("ORIGIN:LINE: ...") when the file cannot give rows, listing every key still missing at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <dgx/plugin.h>
#include <dgx/sdk/error.hpp>
#include <dgx/sdk/host.hpp>

namespace dgx::sdk {

/// One line of the file being read.
struct ImportLine {
  std::string_view text;   // without its line break (a '\r' before it kept); valid until the next line is asked for
  int number = 0;          // 1-based, in the file
  bool line_break = true;  // false for a last line the file ends without one
};

/// One file to read, as dgx_import_request says it.
struct ImportRequest {
  /// The file (launcher prefixes off, one line per line of the file), or only its first lines (at most
  /// DGX_IMPORT_HEAD_BYTES) when text_complete is false: enough to tell a format's variant, not to read a log.
  std::string_view text;
  bool text_complete = true;
  /// The kept lines from the first, one per call; nullopt past the last. Each call moves on: a reader reads the
  /// lines once. Throws sdk::Error when the host cannot read the file further.
  std::function<std::optional<ImportLine>()> next_line;
  std::string origin;  // the file as the user named it
  /// The user's --set entries: key and TOML value literal ({"system", "\"h100-sxm\""}, {"gpus", "8"}).
  std::vector<std::pair<std::string, std::string>> sets;
  bool inspect = false;                   // say what the file says (ImportSink::reading); emit no rows
  std::optional<int> world_size;          // what the launcher's prefixes show
  int world_size_line = 0;                // where
  std::optional<std::int64_t> file_time;  // the file's modification time, UTC seconds
};

/// What a log says by itself (dgxhost import --inspect).
struct LogReading {
  struct Value {
    std::string name;
    double value = 0;
    std::string unit;  // one of <dgx/sdk/units.hpp>
  };
  std::string tool, version, kind, workload, timing, lines, steady_state;
  std::vector<Value> values;                                 // the most telling first
  std::vector<std::pair<std::string, std::string>> printed;  // {"parallel.tp", "8 (line 4)"}
  std::vector<std::string> notes;
};

class ImportSink {
public:
  explicit ImportSink(const dgx_import_sink* sink) : sink_(sink) {}

  /// In inspect mode, once.
  void reading(const LogReading& r) const {
    std::vector<dgx_metric> values;
    for (const LogReading::Value& v : r.values) {
      values.push_back({sizeof(dgx_metric), v.name.c_str(), v.value, v.unit.c_str(), 0, nullptr});
    }
    std::vector<dgx_field> printed;
    for (const auto& [key, value] : r.printed) {
      printed.push_back({sizeof(dgx_field), key.c_str(), value.c_str(), 0});
    }
    std::vector<const char*> notes;
    for (const std::string& n : r.notes) {
      notes.push_back(n.c_str());
    }
    auto text = [](const std::string& s) { return s.empty() ? nullptr : s.c_str(); };
    dgx_log_reading c{};
    c.struct_size = sizeof c;
    c.tool = text(r.tool);
    c.version = text(r.version);
    c.kind = text(r.kind);
    c.workload = text(r.workload);
    c.timing = text(r.timing);
    c.lines = text(r.lines);
    c.steady_state = text(r.steady_state);
    c.values = values.data();
    c.value_count = static_cast<std::uint32_t>(values.size());
    c.printed = printed.data();
    c.printed_count = static_cast<std::uint32_t>(printed.size());
    c.notes = notes.data();
    c.note_count = static_cast<std::uint32_t>(notes.size());
    if (sink_ == nullptr || sink_->reading == nullptr) {
      throw Unsupported("the host takes no reading (not an inspection)");
    }
    const dgx_status status = sink_->reading(sink_->ctx, &c);
    if (status != DGX_OK) {
      throw Error(status, "the host refused the reading");
    }
  }

private:
  const dgx_import_sink* sink_;
};

/// A format the plugin reads.
struct FormatSpec {
  std::string name{};     // lower case, digits, '-': "nccl-tests"
  std::string summary{};  // one line: the tool and which of its outputs
  /// 0 (not this format) to 100 (only this format prints this); asked of whole texts and of single lines. Must
  /// not throw (an exception counts as 0).
  std::function<int(std::string_view text)> probe{};
  std::function<void(Host& host, const ImportRequest& request, ImportSink& sink)> read{};
};

namespace detail {

inline const FormatSpec& format_of(const dgx_format_desc* self) {
  return *static_cast<const FormatSpec*>(self->user_data);
}

inline std::int32_t probe_format(const dgx_format_desc* self, const char* text, std::uint64_t size) {
  try {
    const int score = format_of(self).probe(std::string_view(text, size));
    return score < 0 ? 0 : score > 100 ? 100 : score;
  } catch (...) {  // a probe never fails: it just does not recognise the text
    return 0;
  }
}

/// The lines of `text` as a host of ABI 1.2 hands them: all of the file at once.
inline std::function<std::optional<ImportLine>()> lines_of(std::string_view text) {
  return [text, number = 0]() mutable -> std::optional<ImportLine> {
    if (text.empty()) {
      return std::nullopt;
    }
    const std::size_t end = text.find('\n');
    const ImportLine line{text.substr(0, end), ++number, end != std::string_view::npos};
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    return line;
  };
}

/// The lines the host streams (ABI 1.3).
inline std::function<std::optional<ImportLine>()> lines_from(const dgx_import_request& r) {
  return [&r]() -> std::optional<ImportLine> {
    const char* text = nullptr;
    std::uint64_t size = 0;
    std::int32_t number = 0;
    const dgx_status status = r.next_line(r.lines_ctx, &text, &size, &number);
    if (status != DGX_OK) {
      throw Error(status,
                  "the host could not read " + std::string(r.origin != nullptr ? r.origin : "the file") + " further");
    }
    if (text == nullptr) {
      return std::nullopt;
    }
    std::string_view line(text, size);
    const bool line_break = !line.empty() && line.back() == '\n';
    if (line_break) {
      line.remove_suffix(1);
    }
    return ImportLine{line, number, line_break};
  };
}

inline ImportRequest to_request(const dgx_import_request& r) {
  ImportRequest out;
  out.text = std::string_view(r.text, r.size);
  const bool streamed =
      r.struct_size >= offsetof(dgx_import_request, text_complete) + sizeof r.text_complete && r.next_line != nullptr;
  out.text_complete = !streamed || r.text_complete != 0;
  out.next_line = streamed ? lines_from(r) : lines_of(out.text);
  out.origin = r.origin != nullptr ? r.origin : "";
  for (std::uint32_t i = 0; i < r.set_count; ++i) {
    const auto* e = reinterpret_cast<const dgx_config_entry*>(reinterpret_cast<const char*>(r.sets) +
                                                              std::size_t{i} * r.sets[0].struct_size);
    out.sets.emplace_back(e->key, e->value);
  }
  out.inspect = r.inspect != 0;
  if (r.world_size > 0) {
    out.world_size = r.world_size;
    out.world_size_line = r.world_size_line;
  }
  if (r.has_file_time != 0) {
    out.file_time = r.file_time;
  }
  return out;
}

}  // namespace detail

}  // namespace dgx::sdk
