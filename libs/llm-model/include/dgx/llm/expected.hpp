// Errors as values: every public entry point of dgx::llm that can fail on user input (an unknown model, an
// impossible layout, a layout that does not fit in memory, a malformed TOML file) returns Expected<T>. No
// exception escapes the library's public functions; the message names what was received and what was expected.
// It is the catalog's Expected (one Error type for the data and the model that reads it).
#pragma once

#include "dgx/catalog/expected.hpp"

namespace dgx::llm {

using catalog::BadExpectedAccess;
using catalog::Error;
using catalog::Expected;

}  // namespace dgx::llm
