// Request lengths from data (serve.lengths): a CSV file of input and output token counts, one request per row (a
// trace: a user's own log, a benchmark data set's lengths) or one length pair per row with how many requests have it
// (a histogram). The header names the columns: `input,output` or `input,output,count` (also isl/osl,
// input_tokens/output_tokens, weight); blank lines and lines starting with # are skipped. Bad rows are errors naming
// file:line and what was wrong; whether the lengths fit the model's context is serve_config_error's question.
#pragma once

#include "dgx/llm/expected.hpp"
#include "dgx/llm/serve_config.hpp"

#include <string>
#include <string_view>

namespace dgx::llm {

/// Parses the text of a lengths file; `source` names it in errors and in the table.
[[nodiscard]] Expected<LengthTable> parse_lengths(std::string_view text, std::string_view source);

/// Reads and parses a lengths file.
[[nodiscard]] Expected<LengthTable> read_lengths_file(const std::string& path);

}  // namespace dgx::llm
