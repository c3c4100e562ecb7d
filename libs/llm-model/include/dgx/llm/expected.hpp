// Errors as values: every public entry point of dgx::llm that can fail on user input (an unknown model, an
// impossible layout, a layout that does not fit in memory, a malformed TOML file) returns Expected<T>. No
// exception escapes the library's public functions; the message names what was received and what was expected.
// The template is the SDK's one Expected (dgx/sdk/expected.hpp), with this library's Error.
#pragma once

#include <string>

#include <dgx/sdk/expected.hpp>

namespace dgx::llm {

/// A failure with a human-readable reason, e.g. "TP 16 exceeds the NVLink domain of 8 on h100-sxm".
struct Error {
  std::string message;
};

using BadExpectedAccess = sdk::BadExpectedAccess;

/// Either a T or an Error.
template <class T> using Expected = sdk::Expected<T, Error>;

}  // namespace dgx::llm
