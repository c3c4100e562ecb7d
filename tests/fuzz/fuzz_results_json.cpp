// Reading JSON that someone else may have written: results documents (--baseline FILE, dgxhost compare) and
// journal lines (--resume). Malformed input must be refused with a message that says what is wrong: the parser's
// std::runtime_error (syntax, nesting beyond kMaxNesting) or json::ReadError naming a member by its JSON path.
// Any other exception (std::bad_variant_access from a value of the wrong type, std::out_of_range from a missing
// key) escapes and stops the fuzzer, as would a stack overflow on a deep document; the seeds reach both.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "dgx/core/results/document_reader.hpp"
#include "dgx/core/run/journal.hpp"
#include "dgx/json/json.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  dgx::fuzz::check_rejection(dgx::parse_results(text, "fuzz.json"));
  try {
    const dgx::json::Value value = dgx::json::parse(text);
    (void)dgx::json::write(value);
    const dgx::json::Cursor doc(value);
    if (value.is_object()) {
      if (const auto row = doc.find("row")) {
        const dgx::ResultRow back = dgx::row_from_journal(*row);
        (void)dgx::json::write(dgx::row_to_journal(back));
      }
      if (const dgx::json::Value* schema = value.as_object().find("schema");
          schema != nullptr && *schema == dgx::json::Value(dgx::kResultsSchema)) {
        (void)dgx::read_results(doc);
      }
      (void)dgx::resume_mismatch(value.as_object(), value.as_object());
      // Against a header of another run, so that every member it compares (ranks first) is read as it may be typed.
      static const dgx::json::Value other = dgx::json::parse(
          R"({"schema":"dgx.journal/1","workload":"p:w","mode":"measure","ranks":{"world_size":1,"transport":"local"},)"
          R"("config":{"a":1}})");
      (void)dgx::resume_mismatch(value.as_object(), other.as_object());
      (void)dgx::resume_mismatch(other.as_object(), value.as_object());
    }
  } catch (const std::runtime_error&) {  // refused, saying why: expected
  }
  return 0;
}
