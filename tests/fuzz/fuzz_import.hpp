// What the import fuzz targets share: one family's parsers on the raw bytes, then the whole path a file takes: the
// host's launcher cleaning (core/src/import), and each format of the family that recognises the text read by its
// plugin-side reader (libs/log-import) in inspect mode and with the keys a row needs supplied, so that the fuzzer
// reaches the row-making code and not only the refusals. A reader may refuse anything with InvalidArgument and a
// message; it must never crash, hang, leak, read out of bounds or fail another way.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <dgx/sdk/format.hpp>
#include <dgx/sdk/testing/fake_host.hpp>

#include "launcher_output.hpp"  // core/src/import: the host's cleaning
#include "log_input.hpp"        // core/src/import
#include "parsed_run.hpp"       // libs/log-import/src: the parsers themselves

namespace dgx::fuzz {

inline void require(bool holds) {
  if (!holds) {
    __builtin_trap();
  }
}

inline dgx_status ignore_reading(void*, const dgx_log_reading* reading) {
  require(reading != nullptr && reading->struct_size >= sizeof(dgx_log_reading));
  return DGX_OK;
}

inline void read_as(const sdk::FormatSpec& format, std::string_view text,
                    const std::vector<std::pair<std::string, std::string>>& sets, bool inspect) {
  sdk::testing::FakeHost fake;
  sdk::Host host(fake.api());
  const dgx_import_sink c_sink{sizeof(dgx_import_sink), nullptr, &ignore_reading};
  sdk::ImportSink sink(&c_sink);
  sdk::ImportRequest request;
  request.text = text;
  request.origin = "fuzz.log";
  request.sets = sets;
  request.inspect = inspect;
  try {
    format.read(host, request, sink);
  } catch (const sdk::InvalidArgument& e) {
    require(std::string_view(e.what()).find("fuzz.log") == 0);  // a refusal names the file (and the line)
  }
}

/// `sets`: key and TOML literal, as the host passes --set.
inline void fuzz_import(std::string_view text, std::initializer_list<logs::Parser> parsers,
                        const std::vector<sdk::FormatSpec>& formats,
                        const std::vector<std::pair<std::string, std::string>>& sets) {
  for (const logs::Parser parse : parsers) {
    logs::LineSource lines(text);
    auto run = parse(lines, "fuzz.log");
    require(run || !run.error().message.empty());
  }
  detail::LogInput input{std::string(text)};
  const detail::LauncherOutput log{input};
  const std::string cleaned = log.text();
  for (const sdk::FormatSpec& format : formats) {
    const int score = format.probe(cleaned);
    require(score >= 0 && score <= 100);
    if (score > 0) {
      read_as(format, cleaned, {}, true);
      read_as(format, cleaned, sets, false);
    }
  }
}

}  // namespace dgx::fuzz
