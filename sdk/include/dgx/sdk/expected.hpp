// Errors as values (std::expected is C++23): a T, or an error E that says what was received and what was
// expected. The one Expected of the tree: the host uses it with its Failure (exit code + message), the model
// library with its Error (a message), and a plugin author may use it with any error type that has a `message`.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace dgx::sdk {

/// Thrown only by Expected::value() on an error: reading a value that is not there is a programming bug.
class BadExpectedAccess : public std::logic_error {
public:
  using std::logic_error::logic_error;
};

/// Either a T or an E. E must have a `std::string message` member: it is what a wrong access reports.
template <class T, class E> class [[nodiscard]] Expected {
public:
  Expected(T value) : state_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Expected(E error) : state_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool has_value() const { return state_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  [[nodiscard]] const T& value() const& { return checked(); }
  [[nodiscard]] T& value() & { return const_cast<T&>(checked()); }
  [[nodiscard]] T&& value() && { return std::move(const_cast<T&>(checked())); }
  const T* operator->() const { return &checked(); }
  T* operator->() { return &const_cast<T&>(checked()); }
  const T& operator*() const& { return checked(); }
  T& operator*() & { return const_cast<T&>(checked()); }

  /// The error; only meaningful when !has_value().
  [[nodiscard]] const E& error() const { return std::get<1>(state_); }

private:
  [[nodiscard]] const T& checked() const {
    if (!has_value()) {
      throw BadExpectedAccess("Expected holds an error: " + std::get<1>(state_).message);
    }
    return std::get<0>(state_);
  }

  std::variant<T, E> state_;
};

}  // namespace dgx::sdk
