// Errors as values: every public entry point of dgx::catalog (and of the libraries built on it) that can fail on
// user input (an unknown model, a misspelt key, a malformed TOML file) returns Expected<T>. No exception escapes the
// library's public functions; the message names what was received and what was expected. The template is the
// SDK's one Expected (dgx/sdk/expected.hpp), with this library's Error.
#pragma once

#include <string>

#include <dgx/sdk/expected.hpp>

namespace dgx::catalog {

/// A failure with a human-readable reason, e.g. "configs/models/x.toml:4:10: key 'heads' must be a positive integer".
struct Error {
  std::string message;
};

using BadExpectedAccess = sdk::BadExpectedAccess;

/// Either a T or an Error.
template <class T> using Expected = sdk::Expected<T, Error>;

}  // namespace dgx::catalog
