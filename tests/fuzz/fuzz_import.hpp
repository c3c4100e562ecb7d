// What the import fuzz targets share: one family's parsers on the raw bytes, then the whole path a user takes
// (launcher cleaning, detection, inspection, --set, rows) with the keys a row needs supplied, so that the fuzzer
// reaches the row-making code and not only the refusals. A parser may refuse anything, with a documented exit code
// and a message; it must never crash, hang, leak or read out of bounds.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "dgx/core/import/import.hpp"
#include "fuzz_check.hpp"
#include "parsed_run.hpp"  // core/src/import: the parsers themselves

namespace dgx::fuzz {

inline void fuzz_import(std::string_view text, std::initializer_list<detail::Parser> parsers,
                        const std::vector<std::string>& sets) {
  for (const detail::Parser parse : parsers) {
    check_rejection(parse(text, "fuzz.log"));
  }
  check_rejection(inspect_text(text, "fuzz.log"));
  check_rejection(import_text(text, "fuzz.log", sets));
}

}  // namespace dgx::fuzz
