// Reading JSON the host wrote: results documents and journal lines (json::parse, then rows read back).
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string_view>

#include "dgx/core/run/journal.hpp"
#include "dgx/core/support/json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const dgx::json::Value value = dgx::json::parse(text);
    (void)dgx::json::write(value);
    if (value.is_object()) {
      if (const dgx::json::Value* row = value.as_object().find("row")) {
        const dgx::ResultRow back = dgx::row_from_journal(*row);
        (void)dgx::json::write(dgx::row_to_journal(back));
      }
      if (const dgx::json::Value* results = value.as_object().find("results"); results && results->is_array()) {
        for (const dgx::json::Value& r : results->as_array()) {
          (void)dgx::row_from_journal(r);
        }
      }
      (void)dgx::resume_mismatch(value.as_object(), value.as_object());
    }
  } catch (const std::exception&) {  // malformed input is reported by exceptions: expected
  }
  return 0;
}
