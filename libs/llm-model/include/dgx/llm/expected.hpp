// Errors as values: every public entry point of dgx::llm that can fail on user input (an unknown model, an
// impossible layout, a layout that does not fit in memory, a malformed TOML file) returns Expected<T>. No
// exception escapes the library's public functions; the message names what was received and what was expected.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace dgx::llm {

/// A failure with a human-readable reason, e.g. "TP 16 exceeds the NVLink domain of 8 on h100-sxm".
struct Error {
  std::string message;
};

/// Thrown only by Expected::value() on an error: reading a value that is not there is a programming bug.
class BadExpectedAccess : public std::logic_error {
public:
  using std::logic_error::logic_error;
};

/// Either a T or an Error (std::expected is C++23).
template <class T> class Expected {
public:
  Expected(T value) : state_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Expected(Error error) : state_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool has_value() const { return state_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  [[nodiscard]] const T& value() const& { return checked(); }
  [[nodiscard]] T& value() & { return const_cast<T&>(checked()); }
  [[nodiscard]] T&& value() && { return std::move(const_cast<T&>(checked())); }
  const T* operator->() const { return &checked(); }
  T* operator->() { return &const_cast<T&>(checked()); }
  const T& operator*() const { return checked(); }

  /// The error; only meaningful when !has_value().
  [[nodiscard]] const Error& error() const { return std::get<Error>(state_); }

private:
  [[nodiscard]] const T& checked() const {
    if (!has_value()) {
      throw BadExpectedAccess("dgx::llm::Expected holds an error: " + std::get<Error>(state_).message);
    }
    return std::get<T>(state_);
  }

  std::variant<T, Error> state_;
};

}  // namespace dgx::llm
