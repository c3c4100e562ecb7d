// Errors as values inside the host: a value or a Failure (exit code + one-line message).
#pragma once

#include <string>
#include <utility>
#include <variant>

#include "dgx/core/support/exit_codes.hpp"

namespace dgx {

struct Failure {
  ExitCode code = ExitCode::run_failed;
  std::string message;
};

template <typename T> class [[nodiscard]] Expected {
public:
  Expected(T value) : storage_(std::move(value)) {}
  Expected(Failure failure) : storage_(std::move(failure)) {}

  [[nodiscard]] bool has_value() const { return storage_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  [[nodiscard]] T& value() & { return std::get<0>(storage_); }
  [[nodiscard]] const T& value() const& { return std::get<0>(storage_); }
  [[nodiscard]] T&& value() && { return std::get<0>(std::move(storage_)); }
  [[nodiscard]] const Failure& error() const { return std::get<1>(storage_); }

  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

private:
  std::variant<T, Failure> storage_;
};

}  // namespace dgx
